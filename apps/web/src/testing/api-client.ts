import { vi } from 'vitest';

import { ApiClient, type ApiClientOptions } from '../lib/api-client';
import { jsonResponse } from './render-app';

// An API client on a fake clock, with sleeps recorded and the token kept in memory (lib/api-*.spec.ts).

export type Fetch = typeof globalThis.fetch;

export function memoryStorage() {
  const values = new Map<string, string>();
  return {
    getItem: (key: string) => values.get(key) ?? null,
    setItem: (key: string, value: string) => void values.set(key, value),
    removeItem: (key: string) => void values.delete(key),
  };
}

export function client(fetch: ApiClientOptions['fetch'], options: Partial<ApiClientOptions> = {}) {
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

export const ok = () => vi.fn<Fetch>(async () => jsonResponse(200, { fine: true }));
