import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { ApiClient } from '../../lib/api-client';
import { pushTexts } from './push-texts';
import {
  forgetFinderPush,
  PUSH_OPT_IN_SNOOZE_MS,
  serviceWorkerReady,
  shouldOfferPush,
  snoozePushOptIn,
  subscribeToPush,
  unsubscribeOwnerPush,
} from './push-subscription';

const KEYS = { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) };
const ENDPOINT = 'https://push.example/send/1';

/** A browser that can push: a ready service worker whose push manager hands out one subscription. */
function pushCapableBrowser({ ready = true } = {}) {
  let current: typeof subscription | null = null;
  const subscription = {
    endpoint: ENDPOINT,
    toJSON: () => ({ endpoint: ENDPOINT, expirationTime: null, keys: KEYS }),
    unsubscribe: vi.fn(async () => ((current = null), true)),
  };
  const postMessage = vi.fn();
  const registration = {
    active: { postMessage },
    pushManager: { getSubscription: vi.fn(async () => current), subscribe: vi.fn(async () => (current = subscription)) },
  };
  vi.stubGlobal('PushManager', function PushManager() {});
  vi.stubGlobal('Notification', { permission: 'default', requestPermission: vi.fn(async () => 'granted') });
  Object.defineProperty(navigator, 'serviceWorker', {
    configurable: true,
    value: { ready: ready ? Promise.resolve(registration) : new Promise(() => undefined), getRegistration: async () => registration },
  });
  return { registration, subscription, postMessage };
}

function api(answers: Record<string, () => Response>) {
  const fetch = vi.fn<typeof globalThis.fetch>(async (input, init) => {
    const key = `${init?.method ?? 'GET'} ${new URL(String(input), 'http://localhost').pathname}`;
    const answer = answers[key];
    return answer ? answer() : new Response(JSON.stringify({ response_code: 'NOT_FOUND', message: key }), { status: 404 });
  });
  return { client: new ApiClient({ fetch, language: () => 'en', sleep: () => Promise.resolve() }), fetch };
}

const json = (status: number, body?: unknown) => () => new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('push opt-in', () => {
  beforeEach(() => localStorage.clear());
  afterEach(() => {
    vi.unstubAllGlobals();
    delete (navigator as { serviceWorker?: unknown }).serviceWorker;
    vi.useRealTimers();
  });

  it('is not offered where the browser cannot push', () => {
    expect(shouldOfferPush()).toBe(false);
  });

  it('is not offered again for an hour after an answer', () => {
    pushCapableBrowser();
    const now = Date.now();
    expect(shouldOfferPush(now)).toBe(true);
    snoozePushOptIn(now);
    expect(shouldOfferPush(now + PUSH_OPT_IN_SNOOZE_MS - 1)).toBe(false);
    expect(shouldOfferPush(now + PUSH_OPT_IN_SNOOZE_MS)).toBe(true);
  });

  it('gives up on a service worker that is not ready within 3 s', async () => {
    vi.useFakeTimers();
    pushCapableBrowser({ ready: false });
    const ready = serviceWorkerReady();
    vi.advanceTimersByTime(3000);
    await expect(ready).rejects.toThrow(/3000 ms/);
  });

  it('registers a finder’s subscription with the finder token, and tells the service worker the language', async () => {
    const { postMessage } = pushCapableBrowser();
    const { client, fetch } = api({
      'GET /api/v1/push/vapid-public-key': json(200, { public_key: 'BAAA' }),
      'POST /api/v1/items/ABCD/push/register': json(204),
    });
    await subscribeToPush(client, { kind: 'finder', code: 'ABCD', finderToken: 'T0KEN' }, 'nl');
    const [, init] = fetch.mock.calls.find(([input]) => String(input).endsWith('/push/register')) ?? [];
    expect(JSON.parse(String(init?.body))).toEqual({ endpoint: ENDPOINT, expirationTime: null, keys: KEYS });
    expect(new Headers(init?.headers).get('x-finder-token')).toBe('T0KEN');
    expect(postMessage).toHaveBeenCalledWith({ type: 'LANG_UPDATE', language: 'nl' });
  });

  it('undoes the subscription when the server refuses it', async () => {
    const { subscription } = pushCapableBrowser();
    const { client } = api({
      'GET /api/v1/push/vapid-public-key': json(200, { public_key: 'BAAA' }),
      'POST /api/v1/user/push/register': json(422, { response_code: 'VALIDATION_ERROR', message: 'x', validation: { endpoint: 'invalid' } }),
    });
    await expect(subscribeToPush(client, { kind: 'owner' }, 'en')).rejects.toThrow();
    expect(subscription.unsubscribe).toHaveBeenCalled();
  });
});

describe('the browser’s one subscription at an owner’s log-out', () => {
  const finder = { kind: 'finder', code: 'ABCD', finderToken: 'T0KEN' } as const;
  const answers = (unregister: () => Response) => ({
    'GET /api/v1/push/vapid-public-key': json(200, { public_key: 'BAAA' }),
    'POST /api/v1/items/ABCD/push/register': json(204),
    'POST /api/v1/user/push/register': json(204),
    'POST /api/v1/user/push/unregister': unregister,
  });
  const unregistered = (fetch: ReturnType<typeof api>['fetch']) =>
    fetch.mock.calls.filter(([input]) => String(input).endsWith('/user/push/unregister')).map(([, init]) => JSON.parse(String(init?.body)) as unknown);

  afterEach(() => {
    vi.unstubAllGlobals();
    delete (navigator as { serviceWorker?: unknown }).serviceWorker;
  });

  it('stays for a finder’s pushes registered from this browser, the owner’s unregistered on the server', async () => {
    const { subscription } = pushCapableBrowser();
    const { client, fetch } = api(answers(json(204)));
    await subscribeToPush(client, finder, 'en');
    await subscribeToPush(client, { kind: 'owner' }, 'en');
    await unsubscribeOwnerPush(client, { tellServer: true });
    expect(unregistered(fetch)).toEqual([{ endpoint: ENDPOINT }]);
    expect(subscription.unsubscribe).not.toHaveBeenCalled();
  });

  it('stays for them after deleting the account too, whose subscriptions the server drops itself', async () => {
    const { subscription } = pushCapableBrowser();
    const { client, fetch } = api(answers(json(204)));
    await subscribeToPush(client, finder, 'en');
    await unsubscribeOwnerPush(client, { tellServer: false });
    expect(unregistered(fetch)).toEqual([]);
    expect(subscription.unsubscribe).not.toHaveBeenCalled();
  });

  it('goes when the server could not be told, so the owner’s pushes stop anyway', async () => {
    const { subscription } = pushCapableBrowser();
    const { client, fetch } = api(answers(json(422, { response_code: 'VALIDATION_ERROR', message: 'x', validation: { endpoint: 'invalid' } })));
    await subscribeToPush(client, finder, 'en');
    await unsubscribeOwnerPush(client, { tellServer: true });
    expect(unregistered(fetch)).toHaveLength(1);
    expect(subscription.unsubscribe).toHaveBeenCalled();
  });

  it('goes once the finder has forgotten their conversation, and no finder is left on it', async () => {
    const { subscription } = pushCapableBrowser();
    const { client } = api(answers(json(204)));
    await subscribeToPush(client, finder, 'en');
    forgetFinderPush('ABCD');
    await unsubscribeOwnerPush(client, { tellServer: true });
    expect(subscription.unsubscribe).toHaveBeenCalled();
  });

  it('goes when the finders’ registrations were for a subscription the browser no longer has', async () => {
    const { subscription } = pushCapableBrowser();
    const { client } = api(answers(json(204)));
    localStorage.setItem('homing.push.finders', JSON.stringify({ endpoint: 'https://push.example/send/old', codes: ['ABCD'] }));
    await subscribeToPush(client, { kind: 'owner' }, 'en');
    await unsubscribeOwnerPush(client, { tellServer: true });
    expect(subscription.unsubscribe).toHaveBeenCalled();
  });
});

describe('push texts', () => {
  it('words a push in the user’s language, English for any other', () => {
    expect(pushTexts('nl-BE').fromOwner.title).toBe('De eigenaar heeft geantwoord');
    expect(pushTexts('es').fromFinder.title).toBe('Nuevo mensaje sobre tu objeto');
    expect(pushTexts('it').language).toBe('en');
  });
});
