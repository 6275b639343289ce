import { act, render, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

import { AppProvider } from '../../app/provider';
import { createI18n } from '../../i18n/i18n';
import { ApiClient } from '../../lib/api-client';
import { fakeToken, jsonResponse } from '../../testing/render-app';
import { SessionKeeper } from './session-keeper';

const REFRESH_URL = '/api/v1/auth/refresh-token';

function keepSession() {
  let now = 1_000_000_000;
  const clock = { advance: (ms: number) => (now += ms) };
  // Each fresh token still expires within 30 minutes, so every check that is allowed refreshes again.
  const soonExpiring = () => fakeToken({ exp: Math.floor(now / 1000) + 10 * 60 });
  const fetch = vi.fn<typeof globalThis.fetch>(async () => jsonResponse(200, { token: soonExpiring() }));
  const api = new ApiClient({ fetch, now: () => now, storage: null });
  api.setToken(soonExpiring());
  render(
    <AppProvider i18n={createI18n()} api={api}>
      <SessionKeeper />
    </AppProvider>,
  );
  const refreshes = () => fetch.mock.calls.filter(([url]) => url === REFRESH_URL).length;
  const dispatch = (event: Event) => act(() => void window.dispatchEvent(event));
  return { api, clock, refreshes, dispatch };
}

describe('the session keeper', () => {
  it('refreshes a token close to expiry when the user moves the mouse', async () => {
    const session = keepSession();
    expect(session.refreshes()).toBe(0);
    session.dispatch(new MouseEvent('mousemove'));
    await waitFor(() => expect(session.refreshes()).toBe(1));
  });

  it('refreshes on a key press and on a touch movement, looking at most once per 1000 ms', async () => {
    const session = keepSession();
    session.dispatch(new KeyboardEvent('keydown', { key: 'a' }));
    await waitFor(() => expect(session.refreshes()).toBe(1));

    session.clock.advance(999);
    session.dispatch(new Event('touchmove'));
    session.dispatch(new MouseEvent('mousemove'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(session.refreshes()).toBe(1);

    session.clock.advance(1);
    session.dispatch(new Event('touchmove'));
    await waitFor(() => expect(session.refreshes()).toBe(2));
  });

  it('leaves a logged-out visitor alone', async () => {
    const session = keepSession();
    session.api.setToken(null);
    session.dispatch(new MouseEvent('mousemove'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(session.refreshes()).toBe(0);
  });
});
