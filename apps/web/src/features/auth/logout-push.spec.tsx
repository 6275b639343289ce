import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { callsTo, gateway, headersOf } from '../../testing/gateway';
import { fakeToken, jsonResponse, renderApp } from '../../testing/render-app';

const ENDPOINT = 'https://push.example/send/1';

/** A browser subscribed to the owner's pushes. */
function subscribedBrowser() {
  const subscription = { endpoint: ENDPOINT, unsubscribe: vi.fn(async () => true) };
  const registration = { active: { postMessage: vi.fn() }, pushManager: { getSubscription: vi.fn(async () => subscription) } };
  vi.stubGlobal('PushManager', function PushManager() {});
  vi.stubGlobal('Notification', { permission: 'granted', requestPermission: vi.fn(async () => 'granted') });
  Object.defineProperty(navigator, 'serviceWorker', {
    configurable: true,
    value: { ready: Promise.resolve(registration), getRegistration: async () => registration },
  });
  return subscription;
}

describe('the owner’s pushes when the session ends', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    delete (navigator as { serviceWorker?: unknown }).serviceWorker;
  });

  it('are unregistered with the still-valid token, then unsubscribed, before logging out', async () => {
    const subscription = subscribedBrowser();
    const fetch = gateway({
      'GET /api/v1/user/items': () => jsonResponse(200, []),
      'POST /api/v1/auth/logout': () => jsonResponse(204),
      'POST /api/v1/user/push/unregister': () => jsonResponse(204),
    });
    const token = fakeToken();
    renderApp('/items', { fetch, token });
    await userEvent.click(await screen.findByRole('button', { name: 'Log out' }));
    expect(await screen.findByRole('link', { name: 'Log in' })).toBeInTheDocument();

    const [unregister] = callsTo(fetch, 'POST', '/api/v1/user/push/unregister');
    expect(JSON.parse(String(unregister[1]?.body))).toEqual({ endpoint: ENDPOINT });
    expect(headersOf(unregister[1]).authorization).toBe(`Bearer ${token}`);
    expect(subscription.unsubscribe).toHaveBeenCalled();
    expect(callsTo(fetch, 'POST', '/api/v1/auth/logout')).toHaveLength(1);
  });

  it('never keep the owner from logging out when the server does not answer', async () => {
    const subscription = subscribedBrowser();
    const fetch = gateway({
      'GET /api/v1/user/items': () => jsonResponse(200, []),
      'POST /api/v1/auth/logout': () => jsonResponse(204),
      'POST /api/v1/user/push/unregister': () => new Promise<Response>(() => undefined),
    });
    const { api } = renderApp('/items', { fetch, token: fakeToken() });
    await userEvent.click(await screen.findByRole('button', { name: 'Log out' }));
    expect(await screen.findByRole('link', { name: 'Log in' }, { timeout: 4000 })).toBeInTheDocument();
    expect(api.getToken()).toBeNull();
    expect(subscription.unsubscribe).not.toHaveBeenCalled();
  });

  it('are unsubscribed in the browser after deleting the account, which the server’s subscriptions go with', async () => {
    const subscription = subscribedBrowser();
    const fetch = gateway({ 'DELETE /api/v1/user': () => jsonResponse(200, { response_code: 'USER_DELETED' }) });
    const { api } = renderApp('/account', { fetch, token: fakeToken() });
    await userEvent.click(await screen.findByRole('button', { name: 'Delete my account' }));
    await userEvent.type(await screen.findByLabelText('Password'), 'correct horse');
    await userEvent.click(screen.getByRole('button', { name: 'Delete my account for good' }));

    await waitFor(() => expect(api.getToken()).toBeNull());
    expect(subscription.unsubscribe).toHaveBeenCalled();
    expect(callsTo(fetch, 'POST', '/api/v1/user/push/unregister')).toEqual([]);
  });
});
