import { regexes } from 'zod/v4/core';
import { describe, expect, it } from 'vitest';

import { FINDER_EMAIL } from './message-form';

// The gateway checks the address with zod's z.email(): an address the form lets through must not come back refused.
const addresses = [
  'finder@example.com',
  'finder@example.co',
  'finder@example.c',
  'first.last+tag@sub.example-host.org',
  "o'brien@example.ie",
  'finder@example',
  'finder@-example.com',
  '.finder@example.com',
  'fin..der@example.com',
  'finder.@example.com',
  'finder@exa_mple.com',
  'finder@example.c0m',
  'finder @example.com',
  'finder@@example.com',
];

describe('the finder’s e-mail check', () => {
  it.each(addresses)('judges %s as the gateway does', (address) => {
    expect(FINDER_EMAIL.test(address)).toBe(regexes.email.test(address));
  });

  it('wants a top-level domain of two letters or more', () => {
    expect(FINDER_EMAIL.test('finder@example.c')).toBe(false);
    expect(FINDER_EMAIL.test('finder@example.co')).toBe(true);
  });
});
