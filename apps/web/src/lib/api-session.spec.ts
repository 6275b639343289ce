import { describe, expect, it, vi } from 'vitest';

import { ApiClient } from './api-client';
import { tokenStorageKey } from './api-session';
import { client, memoryStorage, ok, type Fetch } from '../testing/api-client';
import { fakeToken, jsonResponse } from '../testing/render-app';

describe('the API session', () => {
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

    it('takes a 401 INVALID_CREDENTIALS on a held token’s call as a wrong password: no refresh, no second try', async () => {
      const fetch = vi.fn<Fetch>(async () => jsonResponse(401, { response_code: 'INVALID_CREDENTIALS' }));
      const { api } = client(fetch);
      const token = fakeToken({ exp: 9_999_999_998 });
      api.setToken(token);
      await expect(api.request('DELETE', '/user', { body: { password: 'wrong' } })).rejects.toMatchObject({ status: 401, code: 'INVALID_CREDENTIALS' });
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

    it('keeps a logout’s token, and a refresh meanwhile, in the page alone; a later login is stored again', async () => {
      const storage = memoryStorage();
      const fresh = fakeToken({ exp: 9_999_999_999 });
      const fetch = vi.fn<Fetch>(async () => jsonResponse(200, { token: fresh }));
      const { api, clock } = client(fetch, { storage });
      api.setToken(fakeToken({ exp: inMinutes(clock.now(), 29) }));
      api.unstoreToken();
      expect(storage.getItem(tokenStorageKey)).toBeNull();
      // A call of the logout (the pushes' unregistering) refreshes the token on its way: the new one is this page's.
      await api.request('POST', '/user/push/unregister');
      expect(api.getToken()).toBe(fresh);
      expect(new ApiClient({ fetch: ok(), storage }).getToken()).toBeNull();
      api.setToken(null);
      api.setToken('a.b.c');
      expect(storage.getItem(tokenStorageKey)).toBe('a.b.c');
    });
  });
});
