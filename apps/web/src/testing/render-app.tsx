import { render } from '@testing-library/react';
import { StrictMode } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { vi } from 'vitest';

import { AppProvider } from '../app/provider';
import { routes } from '../app/router';
import { createI18n, type I18nOptions } from '../i18n/i18n';
import { ApiClient } from '../lib/api-client';

export interface RenderAppOptions extends I18nOptions {
  /** Answers the app's calls; by default every call is a network error. */
  fetch?: typeof fetch;
  /** A token to start logged in with. */
  token?: string;
  /** Under React's StrictMode, as main.tsx renders the app: effects run twice on mount. */
  strictMode?: boolean;
}

/** Renders the whole app at a path, with the same providers and routes as in the browser. */
export function renderApp(path = '/', options: RenderAppOptions = {}) {
  const fetchMock = options.fetch ?? vi.fn<typeof fetch>(() => Promise.reject(new TypeError('no network in tests')));
  // No waiting between retries in tests.
  const api = new ApiClient({ fetch: fetchMock, language: () => document.documentElement.lang || 'en', sleep: () => Promise.resolve() });
  if (options.token) api.setToken(options.token);
  const i18n = createI18n(options);
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const app = (
    <AppProvider i18n={i18n} api={api}>
      <RouterProvider router={router} />
    </AppProvider>
  );
  return {
    i18n,
    api,
    router,
    fetch: fetchMock,
    ...render(options.strictMode ? <StrictMode>{app}</StrictMode> : app),
  };
}

/** An unsigned token with the claims the app reads; the app never verifies signatures (the gateway does). */
export function fakeToken(claims: { id?: string; email?: string; exp?: number; is_admin?: boolean } = {}): string {
  const encode = (value: object) => btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  const payload = { id: '0190a000-0000-7000-8000-000000000001', email: 'owner@example.com', exp: Math.floor(Date.now() / 1000) + 3600, ...claims };
  return `${encode({ alg: 'ES256', typ: 'JWT' })}.${encode(payload)}.signature`;
}

/** A fetch answer as the gateway gives it. */
export function jsonResponse(status: number, body?: unknown, headers: Record<string, string> = {}): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}
