import { createHash } from 'node:crypto';
import { openAnswer, sealAnswer, storedIdempotencyKey } from './sealed-answers';

describe('sealed idempotency answers', () => {
  const answer = { conversation_id: 'c-1', finder_token: 'ft_secret-finder-token-value' };
  const key = '6f1c2f8e-5b0a-4a57-9b0e-2d4f3f1a7c11';
  const scope = 'messaging.send_first:ABC123';

  it('opens with the Idempotency-Key it was sealed with, and holds nothing in clear', () => {
    const sealed = sealAnswer(answer, key, scope);
    expect(sealed).not.toContain('ft_secret');
    expect(Buffer.from(sealed.split('.')[3] ?? '', 'base64').toString('utf8')).not.toContain('ft_secret');
    expect(openAnswer(sealed, key, scope)).toEqual(answer);
  });

  it('seals the same answer differently each time', () => {
    expect(sealAnswer(answer, key, scope)).not.toBe(sealAnswer(answer, key, scope));
  });

  it('does not open with another key or for another caller', () => {
    const sealed = sealAnswer(answer, key, scope);
    expect(() => openAnswer(sealed, `${key}x`, scope)).toThrow();
    expect(() => openAnswer(sealed, key, 'messaging.send_first:OTHER')).toThrow();
  });

  it('does not open once tampered with', () => {
    const [format, iv, tag, data] = sealAnswer(answer, key, scope).split('.');
    const bytes = Buffer.from(data ?? '', 'base64');
    bytes[0] = (bytes[0] ?? 0) ^ 1;
    expect(() => openAnswer([format, iv, tag, bytes.toString('base64')].join('.'), key, scope)).toThrow();
  });

  it('stores the key as its SHA-256, never in clear', () => {
    expect(storedIdempotencyKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(storedIdempotencyKey(key)).not.toContain(key);
  });

  it('keeps null answers', () => {
    expect(openAnswer(sealAnswer(null, key, scope), key, scope)).toBeNull();
  });
});
