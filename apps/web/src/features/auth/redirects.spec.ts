import { describe, expect, it } from 'vitest';

import { afterLoginPath, carriedQuery, loginReturningTo } from './redirects';

describe('where a login goes next', () => {
  it('returns to the account when the login was asked for from there', () => {
    expect(loginReturningTo('/account')).toBe('/login?next=%2Faccount');
    expect(afterLoginPath(new URLSearchParams('next=/account'))).toBe('/account');
  });

  it('ignores a next page that is not one a login may return to', () => {
    for (const next of ['https://evil.example/', '//evil.example', '/admin/tag-batches', '']) {
      expect(afterLoginPath(new URLSearchParams({ next }))).toBe('/items');
    }
  });

  it('carries next along to the other login screens', () => {
    expect(carriedQuery(new URLSearchParams('next=/account'), 'a@example.com')).toBe('?next=%2Faccount&email=a%40example.com');
  });
});
