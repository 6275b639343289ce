import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { lastValueFrom, of, throwError } from 'rxjs';
import { ResponseCode } from '@homing/contracts';
import { RpcError } from '@homing/platform';
import { ApiError } from '../http/http-error';
import { retryAfterSeconds, type UnknownCodeLimiter, UnknownCodeLimitInterceptor } from './unknown-code-limit';

describe('UnknownCodeLimitInterceptor', () => {
  const headers: Record<string, string> = {};
  const context = {
    switchToHttp: () => ({
      getRequest: () => ({ ip: '203.0.113.7' }),
      getResponse: () => ({ header: (name: string, value: string) => (headers[name] = value) }),
    }),
  } as unknown as ExecutionContext;
  let blockedMs: number;
  let misses: string[];
  const limiter = {
    blockedFor: () => blockedMs,
    recordMiss: async (address: string) => void misses.push(address),
  } as unknown as UnknownCodeLimiter;
  const interceptor = new UnknownCodeLimitInterceptor(limiter);
  const run = (handler: CallHandler) => lastValueFrom(interceptor.intercept(context, handler));

  beforeEach(() => {
    blockedMs = 0;
    misses = [];
  });

  it('counts a 404 from items and from the gateway itself as a miss, and passes it on', async () => {
    const notFound = RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
    await expect(run({ handle: () => throwError(() => notFound) })).rejects.toBe(notFound);
    await expect(run({ handle: () => throwError(() => new ApiError(404, ResponseCode.ITEM_NOT_FOUND)) })).rejects.toBeInstanceOf(ApiError);
    expect(misses).toEqual(['203.0.113.7', '203.0.113.7']);
  });

  it('counts neither a found item nor another failure', async () => {
    await expect(run({ handle: () => of({ code: 'X' }) })).resolves.toEqual({ code: 'X' });
    await expect(run({ handle: () => throwError(() => new ApiError(503, ResponseCode.SERVICE_UNAVAILABLE)) })).rejects.toBeInstanceOf(ApiError);
    expect(misses).toEqual([]);
  });

  it('refuses every lookup at the limit with 429 and the rest of the window as Retry-After, asking nobody', async () => {
    blockedMs = 90_500;
    const handle = jest.fn(() => of({}));
    expect(() => interceptor.intercept(context, { handle })).toThrow(expect.objectContaining({ status: 429, response: expect.objectContaining({ response_code: 'RATE_LIMITED' }) }));
    expect(handle).not.toHaveBeenCalled();
    expect(headers['retry-after']).toBe('91');
  });

  it('lets a client below the limit through', async () => {
    await expect(run({ handle: () => of('ok') })).resolves.toBe('ok');
  });

  it('never tells a client to retry after 0 seconds', () => {
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(0)).toBe(1);
  });
});
