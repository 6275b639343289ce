import { ResponseCode } from '@homing/contracts';
import { RpcError } from '@homing/platform';
import { ApiError } from '../http/http-error';
import { retryAfterSeconds } from '@homing/platform';
import { limitUnknownCodeLookups, type UnknownCodeLimiter } from './unknown-code-limit';

describe('limitUnknownCodeLookups', () => {
  let headers: Record<string, string>;
  const reply = { header: (name: string, value: string) => ((headers[name] = value), reply) } as never;
  let blockedMs: number;
  let misses: string[];
  const limiter = {
    blockedFor: () => blockedMs,
    recordMiss: async (address: string) => void misses.push(address),
  } as unknown as UnknownCodeLimiter;
  const run = <T>(lookUp: () => Promise<T>) => limitUnknownCodeLookups(limiter, '203.0.113.7', reply, lookUp);

  beforeEach(() => {
    headers = {};
    blockedMs = 0;
    misses = [];
  });

  it('counts a 404 from items and from the gateway itself as a miss, and passes it on', async () => {
    const notFound = RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
    await expect(run(() => Promise.reject(notFound))).rejects.toBe(notFound);
    await expect(run(() => Promise.reject(new ApiError(404, ResponseCode.ITEM_NOT_FOUND)))).rejects.toBeInstanceOf(ApiError);
    expect(misses).toEqual(['203.0.113.7', '203.0.113.7']);
  });

  it('counts neither a found item nor another failure', async () => {
    await expect(run(async () => ({ code: 'X' }))).resolves.toEqual({ code: 'X' });
    await expect(run(() => Promise.reject(new ApiError(503, ResponseCode.SERVICE_UNAVAILABLE)))).rejects.toBeInstanceOf(ApiError);
    expect(misses).toEqual([]);
  });

  it('refuses every lookup at the limit with 429 and the rest of the window as Retry-After, asking nobody', async () => {
    blockedMs = 90_500;
    const lookUp = jest.fn(async () => ({}));
    await expect(run(lookUp)).rejects.toMatchObject({ status: 429, response: { response_code: 'RATE_LIMITED' } });
    expect(lookUp).not.toHaveBeenCalled();
    expect(headers['retry-after']).toBe('91');
  });

  it('never tells a client to retry after 0 seconds', () => {
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(0)).toBe(1);
  });
});
