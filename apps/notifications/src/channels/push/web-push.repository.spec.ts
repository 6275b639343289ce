import { WebPushError } from 'web-push';
import { classifyPushError, retryAfterMs } from './web-push.repository';

const refusal = (status: number, headers: Record<string, string> = {}) => new WebPushError('refused', status, headers, 'endpoint https://x quoted', 'https://x');

describe('push service answers (F13)', () => {
  it('deletes on 404 and 410, waits on 429, gives up on other 4xx and retries 5xx and network failures', () => {
    expect(classifyPushError(refusal(404)).outcome).toBe('gone');
    expect(classifyPushError(refusal(410)).outcome).toBe('gone');
    expect(classifyPushError(refusal(429, { 'retry-after': '30' }))).toMatchObject({ outcome: 'rate-limited', retryAfterMs: 30_000 });
    expect(classifyPushError(refusal(400)).outcome).toBe('permanent');
    expect(classifyPushError(refusal(413)).outcome).toBe('permanent');
    expect(classifyPushError(refusal(503)).outcome).toBe('temporary');
    expect(classifyPushError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })).outcome).toBe('temporary');
  });

  it('keeps the push service body and the endpoint out of the message', () => {
    expect(classifyPushError(refusal(410)).message).toBe('push service 410 (gone)');
  });

  it('reads Retry-After as seconds or a date, with a floor, a ceiling and a default', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(retryAfterMs('0', now)).toBe(1000);
    expect(retryAfterMs('999999', now)).toBe(60 * 60 * 1000);
    expect(retryAfterMs(undefined, now)).toBe(60_000);
    expect(retryAfterMs('soon', now)).toBe(60_000);
  });
});
