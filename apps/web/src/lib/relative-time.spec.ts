import { describe, expect, it } from 'vitest';

import { formatRelativeTime } from './relative-time';

describe('relative times', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  it('says how long ago in the reader’s language', () => {
    expect(formatRelativeTime('2026-11-23T11:57:00Z', 'en', now)).toBe('3 minutes ago');
    expect(formatRelativeTime('2026-11-23T11:57:00Z', 'nl', now)).toBe('3 minuten geleden');
    expect(formatRelativeTime('2026-11-23T11:57:00Z', 'es', now)).toBe('hace 3 minutos');
    expect(formatRelativeTime('2026-11-22T12:00:00Z', 'en', now)).toBe('yesterday');
  });
});
