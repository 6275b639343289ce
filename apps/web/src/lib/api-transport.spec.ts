import { describe, expect, it, vi } from 'vitest';

import { client, ok, type Fetch } from '../testing/api-client';
import { fakeToken, jsonResponse } from '../testing/render-app';
import { ApiError, CLIENT_RATE_LIMIT_MESSAGE, fileNameOf, type DownloadedFile } from './api-transport';

describe('the API transport', () => {
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

  it('hands over a file as it came, with the name Content-Disposition gives it', async () => {
    const fetch = vi.fn<Fetch>(async () => new Response('%PDF-1.7', { headers: { 'Content-Type': 'application/pdf', 'Content-Disposition': 'attachment; filename="batch.pdf"' } }));
    const { api } = client(fetch);
    const file = await api.request<DownloadedFile>('GET', '/admin/tag-batches/b1/sheet.pdf', { responseType: 'file' });
    expect(file.fileName).toBe('batch.pdf');
    expect(file.blob.type).toBe('application/pdf');
    expect(await file.blob.text()).toBe('%PDF-1.7');
  });

  it('reads the file name of a Content-Disposition header, the UTF-8 one first', () => {
    expect(fileNameOf(`attachment; filename="plain.csv"; filename*=UTF-8''caf%C3%A9%20codes.csv`)).toBe('café codes.csv');
    expect(fileNameOf('inline; filename=page-1.svg')).toBe('page-1.svg');
    expect(fileNameOf('attachment; filename="say \\"hi\\".pdf"')).toBe('say "hi".pdf');
    expect(fileNameOf('attachment')).toBeNull();
    expect(fileNameOf(null)).toBeNull();
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

    it('does not retry a 429 that asks for a longer wait than a retry, and keeps its Retry-After', async () => {
      const fetch = vi.fn<Fetch>(async () => jsonResponse(429, { response_code: 'RATE_LIMITED', message: 'Too many.' }, { 'Retry-After': '57' }));
      const { api } = client(fetch);
      await expect(api.request('GET', '/magic-link', { query: { email: 'a@example.test' } })).rejects.toMatchObject({ status: 429, retryAfterSeconds: 57 });
      expect(fetch).toHaveBeenCalledTimes(1);
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

});
