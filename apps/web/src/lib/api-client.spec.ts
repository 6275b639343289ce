import { describe, expect, it, vi } from 'vitest';

import { fakeToken, jsonResponse } from '../testing/render-app';
import { ApiClient, ApiError, CLIENT_RATE_LIMIT_MESSAGE, tokenStorageKey, type ApiClientOptions } from './api-client';

type Fetch = typeof globalThis.fetch;

function memoryStorage() {
  const values = new Map<string, string>();
  return {
    getItem: (key: string) => values.get(key) ?? null,
    setItem: (key: string, value: string) => void values.set(key, value),
    removeItem: (key: string) => void values.delete(key),
  };
}

function client(fetch: ApiClientOptions['fetch'], options: Partial<ApiClientOptions> = {}) {
  let now = 1_000_000;
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  const sleeps: number[] = [];
  const api = new ApiClient({
    fetch,
    now: clock.now,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    storage: memoryStorage(),
    language: () => 'nl',
    ...options,
  });
  return { api, clock, sleeps };
}

const ok = () => vi.fn<Fetch>(async () => jsonResponse(200, { fine: true }));

describe('the API client', () => {
  it('calls /api/v1 with the language header, the bearer token and a JSON body', async () => {
    const fetch = ok();
    const { api } = client(fetch);
    api.setToken(fakeToken());
    await api.request('POST', '/items', { body: { name: 'Keys' }, idempotencyKey: 'key-1' });

    const [url, init] = fetch.mock.calls[0];
    expect(init?.headers).not.toHaveProperty('Accept-Language');
    expect(url).toBe('/api/v1/items');
    expect(init?.method).toBe('POST');
    expect(init?.body).toBe('{"name":"Keys"}');
    expect(init?.headers).toMatchObject({
      'X-Language': 'nl',
      Authorization: `Bearer ${api.getToken()}`,
      'Content-Type': 'application/json',
      'Idempotency-Key': 'key-1',
    });
  });

  it('reaches website paths outside /api/v1 and passes query parameters', async () => {
    const fetch = vi.fn<Fetch>(async () => new Response('PHN2Zz4=', { status: 200 }));
    const { api } = client(fetch);
    expect(await api.request('GET', '/qr/ABCD', { base: '', query: { sizeInPx: 400, b64: 1 }, responseType: 'text' })).toBe('PHN2Zz4=');
    expect(fetch.mock.calls[0][0]).toBe('/qr/ABCD?sizeInPx=400&b64=1');
  });

  describe('rate limit', () => {
    it('lets 25 calls through at once and cancels the 26th with the client message, without calling the server', async () => {
      const fetch = ok();
      const { api } = client(fetch);
      for (let i = 0; i < 25; i++) await api.request('GET', '/user/me');
      const refused = await api.request('GET', '/user/me').catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ApiError);
      expect(refused).toMatchObject({ kind: 'rate-limited', message: CLIENT_RATE_LIMIT_MESSAGE });
      expect(fetch).toHaveBeenCalledTimes(25);
    });

    it('gives one token back every 500 ms, up to the pool of 25', async () => {
      const fetch = ok();
      const { api, clock } = client(fetch);
      for (let i = 0; i < 25; i++) await api.request('GET', '/user/me');
      clock.advance(499);
      await expect(api.request('GET', '/user/me')).rejects.toMatchObject({ kind: 'rate-limited' });
      clock.advance(1);
      await api.request('GET', '/user/me');
      await expect(api.request('GET', '/user/me')).rejects.toMatchObject({ kind: 'rate-limited' });
      clock.advance(1000);
      await api.request('GET', '/user/me');
      await api.request('GET', '/user/me');
      await expect(api.request('GET', '/user/me')).rejects.toMatchObject({ kind: 'rate-limited' });
      // A long pause refills the pool, never beyond 25.
      clock.advance(60_000);
      for (let i = 0; i < 25; i++) await api.request('GET', '/user/me');
      await expect(api.request('GET', '/user/me')).rejects.toMatchObject({ kind: 'rate-limited' });
    });
  });

  describe('retries', () => {
    it('retries a GET up to 4 times after network errors, waiting about a second with 1–100 ms of jitter', async () => {
      const fetch = vi.fn<Fetch>(async () => {
        throw new TypeError('Failed to fetch');
      });
      const { api, sleeps } = client(fetch);
      await expect(api.request('GET', '/user/items')).rejects.toMatchObject({ kind: 'network' });
      expect(fetch).toHaveBeenCalledTimes(5);
      expect(sleeps).toEqual([1051, 1051, 1051, 1051]);
    });

    it('keeps the jitter between 1 and 100 ms', async () => {
      for (const [random, delay] of [
        [0, 1001],
        [0.999, 1100],
      ]) {
        const fetch = vi.fn<Fetch>().mockResolvedValueOnce(jsonResponse(503, {})).mockResolvedValue(jsonResponse(200, {}));
        const { api, sleeps } = client(fetch, { random: () => random });
        await api.request('GET', '/user/items');
        expect(sleeps).toEqual([delay]);
      }
    });

    it('retries idempotent calls on 5xx and 429 and answers with the first success', async () => {
      const fetch = vi
        .fn<Fetch>()
        .mockResolvedValueOnce(jsonResponse(503, { response_code: 'SERVICE_UNAVAILABLE' }))
        .mockResolvedValueOnce(jsonResponse(429, { response_code: 'RATE_LIMITED' }))
        .mockResolvedValueOnce(jsonResponse(200, [{ code: 'A' }]));
      const { api } = client(fetch);
      expect(await api.request('DELETE', '/user/items/A')).toEqual([{ code: 'A' }]);
      expect(fetch).toHaveBeenCalledTimes(3);
    });

    it('does not retry a POST without an Idempotency-Key, even after a network error', async () => {
      const fetch = vi.fn<Fetch>(async () => {
        throw new TypeError('Failed to fetch');
      });
      const { api } = client(fetch);
      await expect(api.request('POST', '/items', { body: { name: 'Keys' } })).rejects.toMatchObject({ kind: 'network' });
      expect(fetch).toHaveBeenCalledTimes(1);
    });

    it('retries a POST that carries an Idempotency-Key', async () => {
      const fetch = vi.fn<Fetch>().mockResolvedValueOnce(jsonResponse(500, {})).mockResolvedValueOnce(jsonResponse(201, { code: 'A' }));
      const { api } = client(fetch);
      expect(await api.request('POST', '/items', { body: { name: 'Keys' }, idempotencyKey: 'k' })).toEqual({ code: 'A' });
      expect(fetch).toHaveBeenCalledTimes(2);
    });

    it('does not retry client errors', async () => {
      const fetch = vi.fn<Fetch>(async () => jsonResponse(404, { response_code: 'ITEM_NOT_FOUND', message: 'Item not found.' }));
      const { api } = client(fetch);
      const error = await api.request('GET', '/user/items/A').catch((caught: unknown) => caught);
      expect(error).toMatchObject({ kind: 'http', status: 404, code: 'ITEM_NOT_FOUND' });
      expect(fetch).toHaveBeenCalledTimes(1);
    });

    it('hands over the validation map of a 422', async () => {
      const fetch = vi.fn<Fetch>(async () => jsonResponse(422, { response_code: 'VALIDATION_ERROR', message: 'x', validation: { name: 'required' } }));
      const { api } = client(fetch);
      await expect(api.request('POST', '/items', { body: {} })).rejects.toMatchObject({ status: 422, validation: { name: 'required' } });
    });
  });

  describe('timeout', () => {
    it('gives up on a call after the timeout and aborts it', async () => {
      let signal: AbortSignal | undefined;
      const fetch = vi.fn<Fetch>(
        (_url, init) =>
          new Promise((_resolve, reject) => {
            signal = init?.signal ?? undefined;
            signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
          }),
      );
      const { api } = client(fetch, { timeoutMs: 20 });
      await expect(api.request('POST', '/user/login', { body: {} })).rejects.toMatchObject({ kind: 'timeout' });
      expect(signal?.aborted).toBe(true);
    });

    it('waits 10 seconds by default', async () => {
      vi.useFakeTimers();
      try {
        const fetch = vi.fn<Fetch>(
          (_url, init) => new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(new Error('aborted')))),
        );
        const { api } = client(fetch);
        const result = api.request('POST', '/user/login', { body: {} }).catch((error: unknown) => error);
        await vi.advanceTimersByTimeAsync(9_999);
        expect(fetch.mock.calls[0][1]?.signal?.aborted).toBe(false);
        await vi.advanceTimersByTimeAsync(1);
        expect(await result).toMatchObject({ kind: 'timeout' });
      } finally {
        vi.useRealTimers();
      }
    });
  });

  describe('token refresh', () => {
    const inMinutes = (now: number, minutes: number) => Math.floor(now / 1000) + minutes * 60;

    it('refreshes a token that expires in under 30 minutes before the call, and uses the new one', async () => {
      const calls: string[] = [];
      const fresh = fakeToken({ exp: 9_999_999_999 });
      const fetch = vi.fn<Fetch>(async (url, init) => {
        calls.push(`${init?.method} ${String(url)} ${(init?.headers as Record<string, string>).Authorization?.slice(-8)}`);
        return String(url).endsWith('/auth/refresh-token') ? jsonResponse(200, { token: fresh }) : jsonResponse(200, {});
      });
      const { api, clock } = client(fetch);
      const old = fakeToken({ exp: inMinutes(clock.now(), 29) });
      api.setToken(old);
      const events: string[] = [];
      api.onSessionChange((_token, reason) => events.push(reason));

      await api.request('GET', '/user/me');
      expect(calls).toEqual([`POST /api/v1/auth/refresh-token ${old.slice(-8)}`, `GET /api/v1/user/me ${fresh.slice(-8)}`]);
      expect(api.getToken()).toBe(fresh);
      expect(events).toEqual(['refresh']);
    });

    it('leaves a token with 30 minutes or more to live alone', async () => {
      const fetch = ok();
      const { api, clock } = client(fetch);
      api.setToken(fakeToken({ exp: inMinutes(clock.now(), 31) }));
      await api.request('GET', '/user/me');
      expect(fetch.mock.calls.map(([url]) => url)).toEqual(['/api/v1/user/me']);
    });

    it('checks at most once per second', async () => {
      const fetch = vi.fn<Fetch>(async (url) => (String(url).endsWith('/auth/refresh-token') ? jsonResponse(503, {}) : jsonResponse(200, {})));
      const { api, clock } = client(fetch);
      api.setToken(fakeToken({ exp: inMinutes(clock.now(), 10) }));
      await api.request('GET', '/user/me');
      await api.request('GET', '/user/me');
      clock.advance(999);
      await api.refreshIfDue();
      expect(fetch.mock.calls.filter(([url]) => String(url).endsWith('/auth/refresh-token'))).toHaveLength(1);
      clock.advance(1);
      await api.refreshIfDue();
      expect(fetch.mock.calls.filter(([url]) => String(url).endsWith('/auth/refresh-token'))).toHaveLength(2);
    });

    it('logs out when the server refuses the refresh', async () => {
      const fetch = vi.fn<Fetch>(async (url) =>
        String(url).endsWith('/auth/refresh-token') ? jsonResponse(401, { response_code: 'SESSION_EXPIRED' }) : jsonResponse(401, {}),
      );
      const storage = memoryStorage();
      const { api, clock } = client(fetch, { storage });
      api.setToken(fakeToken({ exp: inMinutes(clock.now(), 5) }));
      const events: string[] = [];
      api.onSessionChange((_token, reason) => events.push(reason));
      await api.refreshIfDue();
      expect(api.getToken()).toBeNull();
      expect(storage.getItem(tokenStorageKey)).toBeNull();
      expect(events).toEqual(['expired']);
    });

    it('answers a 401 on a held token with one refresh and a second try', async () => {
      const fresh = fakeToken({ exp: 9_999_999_999 });
      const fetch = vi.fn<Fetch>(async (url, init) => {
        if (String(url).endsWith('/auth/refresh-token')) return jsonResponse(200, { token: fresh });
        const bearer = (init?.headers as Record<string, string>).Authorization;
        return bearer === `Bearer ${fresh}` ? jsonResponse(200, { ok: true }) : jsonResponse(401, { response_code: 'SESSION_EXPIRED' });
      });
      const { api } = client(fetch);
      api.setToken(fakeToken({ exp: 9_999_999_998 }));
      expect(await api.request('GET', '/user/me')).toEqual({ ok: true });
      expect(fetch).toHaveBeenCalledTimes(3);
    });

    it('logs out when a 401 on a held token cannot be cured by a refresh', async () => {
      const fetch = vi.fn<Fetch>(async () => jsonResponse(401, { response_code: 'SESSION_EXPIRED' }));
      const { api } = client(fetch);
      api.setToken(fakeToken({ exp: 9_999_999_998 }));
      await expect(api.request('GET', '/user/me')).rejects.toMatchObject({ status: 401 });
      expect(api.getToken()).toBeNull();
      expect(fetch).toHaveBeenCalledTimes(2);
    });

    it('takes a 401 from a login as a wrong password, not as a dead session', async () => {
      const fetch = vi.fn<Fetch>(async () => jsonResponse(401, { response_code: 'INVALID_CREDENTIALS' }));
      const { api } = client(fetch);
      const token = fakeToken({ exp: 9_999_999_998 });
      api.setToken(token);
      await expect(api.request('POST', '/user/login', { body: {} })).rejects.toMatchObject({ status: 401 });
      expect(api.getToken()).toBe(token);
      expect(fetch).toHaveBeenCalledTimes(1);
    });

    it('keeps the session when the refresh meets a network error, to try again later', async () => {
      const fetch = vi.fn<Fetch>(async () => {
        throw new TypeError('Failed to fetch');
      });
      const { api, clock } = client(fetch);
      const token = fakeToken({ exp: inMinutes(clock.now(), 5) });
      api.setToken(token);
      await api.refreshIfDue();
      expect(api.getToken()).toBe(token);
    });

    it('tells an expired token from a live one (the app refreshes and reloads at start)', () => {
      const { api, clock } = client(ok());
      api.setToken(fakeToken({ exp: inMinutes(clock.now(), 1) }));
      expect(api.isTokenExpired()).toBe(false);
      clock.advance(60_000);
      expect(api.isTokenExpired()).toBe(true);
    });

    describe('with a token already expired when the page opens', () => {
      const refreshAnswering = (answer: () => Response) =>
        vi.fn<Fetch>(async (url) => {
          if (String(url).endsWith('/auth/refresh-token')) return answer();
          return jsonResponse(200, {});
        });

      function openPage(fetch: Fetch, storage = memoryStorage()) {
        const { api, clock } = client(fetch, { storage });
        api.setToken(fakeToken({ exp: inMinutes(clock.now(), -1) }));
        return { api, clock, storage };
      }

      it('refreshes it and reloads the page once', async () => {
        const { api, clock, storage } = openPage(refreshAnswering(() => jsonResponse(200, { token: fakeToken({ exp: 9_999_999_999 }) })));
        const reload = vi.fn();
        await api.reloadIfExpiredAtStart(reload);
        expect(reload).toHaveBeenCalledTimes(1);

        // The reloaded page finds the fresh token and stays.
        const reloaded = new ApiClient({ fetch: ok(), storage, now: clock.now });
        await reloaded.reloadIfExpiredAtStart(reload);
        expect(reload).toHaveBeenCalledTimes(1);
      });

      it('does not reload when the refresh meets a network error, and keeps the session for a later try', async () => {
        const { api } = openPage(
          vi.fn<Fetch>(async () => {
            throw new TypeError('Failed to fetch');
          }),
        );
        const token = api.getToken();
        const reload = vi.fn();
        await api.reloadIfExpiredAtStart(reload);
        expect(reload).not.toHaveBeenCalled();
        expect(api.getToken()).toBe(token);
      });

      it('does not reload when the refresh answers 5xx', async () => {
        const { api } = openPage(refreshAnswering(() => jsonResponse(503, {})));
        const reload = vi.fn();
        await api.reloadIfExpiredAtStart(reload);
        expect(reload).not.toHaveBeenCalled();
      });

      it('logs out without a reload when the server refuses the refresh', async () => {
        const { api } = openPage(refreshAnswering(() => jsonResponse(401, { response_code: 'SESSION_EXPIRED' })));
        const reload = vi.fn();
        await api.reloadIfExpiredAtStart(reload);
        expect(reload).not.toHaveBeenCalled();
        expect(api.getToken()).toBeNull();
      });

      it('neither refreshes nor reloads a live token', async () => {
        const fetch = ok();
        const { api, clock } = client(fetch);
        api.setToken(fakeToken({ exp: inMinutes(clock.now(), 10) }));
        const reload = vi.fn();
        await api.reloadIfExpiredAtStart(reload);
        expect(reload).not.toHaveBeenCalled();
        expect(fetch).not.toHaveBeenCalled();
      });
    });

    it('keeps the token in storage across page loads', () => {
      const storage = memoryStorage();
      const first = new ApiClient({ fetch: ok(), storage });
      first.setToken('a.b.c');
      expect(new ApiClient({ fetch: ok(), storage }).getToken()).toBe('a.b.c');
    });
  });
});
