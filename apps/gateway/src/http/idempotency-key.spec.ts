import { ApiError } from './http-error';
import { parseIdempotencyKey } from './idempotency-key';

describe('parseIdempotencyKey', () => {
  it('takes no header as no key, and a plain key as it is', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey('0190a4e0-0000-7000-8000-000000000001')).toBe('0190a4e0-0000-7000-8000-000000000001');
    expect(parseIdempotencyKey('k'.repeat(128))).toBe('k'.repeat(128));
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(129)],
    ['with spaces', 'my key'],
    ['sent twice (joined by a comma)', 'a, b'],
    ['non-ASCII', 'clé'],
    ['a list', ['a', 'b']],
  ])('refuses a key that is %s as malformed (400)', (_, header) => {
    let refusal: unknown;
    try {
      parseIdempotencyKey(header);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).getStatus()).toBe(400);
    expect((refusal as ApiError).getResponse()).toMatchObject({ response_code: 'MALFORMED_REQUEST' });
  });
});
