import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { callsTo, gateway, headersOf } from '../../testing/gateway';
import { threadMessage } from '../../testing/messages';
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

const CODE = 'ABCD-EFGH-JKMN-PQRS';
const FINDER_TOKEN = 'AAAAAAAAAAAAAAAAAAAAAA';
const KEYS = { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) };

/** A browser that can push and has no subscription yet: its one subscription is made on the first opt-in. */
function unsubscribedBrowser() {
  let current: typeof subscription | null = null;
  const subscription = {
    endpoint: ENDPOINT,
    toJSON: () => ({ endpoint: ENDPOINT, expirationTime: null, keys: KEYS }),
    unsubscribe: vi.fn(async () => ((current = null), true)),
  };
  const registration = {
    active: { postMessage: vi.fn() },
    pushManager: { getSubscription: vi.fn(async () => current), subscribe: vi.fn(async () => (current = subscription)) },
  };
  vi.stubGlobal('PushManager', function PushManager() {});
  vi.stubGlobal('Notification', { permission: 'default', requestPermission: vi.fn(async () => 'granted') });
  Object.defineProperty(navigator, 'serviceWorker', {
    configurable: true,
    value: { ready: Promise.resolve(registration), getRegistration: async () => registration },
  });
  return subscription;
}

/** Someone wrote about a found item in this browser, and asked to be told of the owner's replies. */
async function finderSubscribedInThisBrowser() {
  const subscription = unsubscribedBrowser();
  localStorage.setItem(`homing.finder.${CODE}`, FINDER_TOKEN);
  const fetch = gateway({
    [`GET /api/v1/items/${CODE}`]: () => jsonResponse(200, { code: CODE, name: 'Keys', claimed_at: '2026-11-01T10:00:00Z', activated: true, is_owner: false, lost: true }),
    [`GET /api/v1/items/${CODE}/messages`]: () => jsonResponse(200, [threadMessage(1, 'finder', 'I found your keys')]),
    [`DELETE /api/v1/items/${CODE}/conversation`]: () => jsonResponse(204),
    'GET /api/v1/push/vapid-public-key': () => jsonResponse(200, { public_key: 'BAAA' }),
    [`POST /api/v1/items/${CODE}/push/register`]: () => jsonResponse(204),
    'GET /api/v1/user/items': () => jsonResponse(200, []),
    'POST /api/v1/user/push/unregister': () => jsonResponse(204),
    'POST /api/v1/auth/logout': () => jsonResponse(204),
  });
  const { api, router } = renderApp(`/found/${CODE}`, { fetch });
  await userEvent.click(await screen.findByRole('button', { name: 'Yes, notify me' }));
  expect(await screen.findByText('Notifications are on for this device.')).toBeInTheDocument();
  expect(callsTo(fetch, 'POST', `/api/v1/items/${CODE}/push/register`)).toHaveLength(1);
  return { subscription, fetch, api, router };
}

/** Then an owner logs in in the same browser, and out. */
async function ownerLogsInAndOut(api: ReturnType<typeof renderApp>['api'], router: ReturnType<typeof renderApp>['router']) {
  act(() => api.setToken(fakeToken()));
  await act(() => router.navigate('/items'));
  await userEvent.click(await screen.findByRole('button', { name: 'Log out' }));
  expect(await screen.findByRole('link', { name: 'Log in' })).toBeInTheDocument();
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

  it('are unregistered at log-out, but the browser’s subscription stays while a finder’s pushes come through it too', async () => {
    const { subscription, fetch, api, router } = await finderSubscribedInThisBrowser();
    await ownerLogsInAndOut(api, router);

    const [unregister] = callsTo(fetch, 'POST', '/api/v1/user/push/unregister');
    expect(JSON.parse(String(unregister[1]?.body))).toEqual({ endpoint: ENDPOINT });
    // The owner's pushes stopped on the server; the finder's still need the browser's subscription.
    expect(subscription.unsubscribe).not.toHaveBeenCalled();
  });

  it('end the browser’s subscription at log-out once that finder has deleted their conversation', async () => {
    const { subscription, fetch, api, router } = await finderSubscribedInThisBrowser();
    await userEvent.click(screen.getByRole('button', { name: 'Delete my conversation' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Yes, delete it' }));
    await waitFor(() => expect(callsTo(fetch, 'DELETE', `/api/v1/items/${CODE}/conversation`)).toHaveLength(1));
    await ownerLogsInAndOut(api, router);

    expect(callsTo(fetch, 'POST', '/api/v1/user/push/unregister')).toHaveLength(1);
    expect(subscription.unsubscribe).toHaveBeenCalled();
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
