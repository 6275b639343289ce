import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('workbox-precaching', () => ({ cleanupOutdatedCaches: vi.fn(), precacheAndRoute: vi.fn() }));

type Handler = (event: Record<string, unknown>) => void;

/** A service worker's global scope, as far as src/sw.ts uses it. */
function fakeWorkerScope(windows: Array<{ url: string; focus: ReturnType<typeof vi.fn>; navigate: ReturnType<typeof vi.fn> }> = []) {
  const handlers = new Map<string, Handler>();
  const stored = new Map<string, string>();
  const scope = {
    __WB_MANIFEST: [],
    location: new URL('https://homing.example/sw.js'),
    navigator: { language: 'en-GB' },
    addEventListener: (type: string, handler: Handler) => handlers.set(type, handler),
    skipWaiting: vi.fn(async () => undefined),
    registration: { showNotification: vi.fn(async () => undefined) },
    clients: { claim: vi.fn(), matchAll: vi.fn(async () => windows), openWindow: vi.fn(async () => null) },
  };
  vi.stubGlobal('self', scope);
  vi.stubGlobal('caches', {
    open: async () => ({
      put: async (key: string, response: Response) => void stored.set(key, await response.text()),
      match: async (key: string) => (stored.has(key) ? new Response(stored.get(key)) : undefined),
    }),
  });
  /** Dispatches an event and waits for what it handed to waitUntil. */
  const dispatch = async (type: string, fields: Record<string, unknown>) => {
    const pending: Array<Promise<unknown>> = [];
    handlers.get(type)?.({ ...fields, waitUntil: (promise: Promise<unknown>) => pending.push(promise) });
    await Promise.all(pending);
  };
  return { scope, dispatch };
}

// Not a typed import: the worker is compiled with the WebWorker library (tsconfig.sw.json), the tests with the DOM's.
const workerModule = './sw';
const pushOf = (payload: unknown) => ({ data: { json: () => payload } });

describe('the service worker', () => {
  beforeEach(() => vi.resetModules());
  afterEach(() => vi.unstubAllGlobals());

  it('shows a push in the language the page last told it, and in the browser’s before that', async () => {
    const { scope, dispatch } = fakeWorkerScope();
    await import(/* @vite-ignore */ workerModule);
    await dispatch('push', pushOf({ kind: 'new-message', author: 'finder', url: '/found/ABCD-EFGH-JKMN-PQRS' }));
    expect(scope.registration.showNotification).toHaveBeenLastCalledWith('New message about your item', expect.objectContaining({ data: { url: '/found/ABCD-EFGH-JKMN-PQRS' } }));

    await dispatch('message', { data: { type: 'LANG_UPDATE', language: 'nl' } });
    await dispatch('push', pushOf({ kind: 'new-message', author: 'owner', url: '/found/ABCD-EFGH-JKMN-PQRS' }));
    expect(scope.registration.showNotification).toHaveBeenLastCalledWith('De eigenaar heeft geantwoord', expect.objectContaining({ lang: 'nl' }));
  });

  it('words a finder’s push in the language it names until a page of this browser chose one', async () => {
    const { scope, dispatch } = fakeWorkerScope();
    await import(/* @vite-ignore */ workerModule);
    await dispatch('push', pushOf({ kind: 'new-message', author: 'owner', url: '/found/ABCD-EFGH-JKMN-PQRS', language: 'es' }));
    expect(scope.registration.showNotification).toHaveBeenLastCalledWith('El propietario ha respondido', expect.objectContaining({ lang: 'es' }));
    // A language we do not offer is no language: the browser's stands.
    await dispatch('push', pushOf({ kind: 'new-message', author: 'owner', url: '/found/ABCD-EFGH-JKMN-PQRS', language: 'fr' }));
    expect(scope.registration.showNotification).toHaveBeenLastCalledWith('The owner replied', expect.objectContaining({ lang: 'en' }));
    // The language chosen in this browser wins: it is the newest word on it.
    await dispatch('message', { data: { type: 'LANG_UPDATE', language: 'nl' } });
    await dispatch('push', pushOf({ kind: 'new-message', author: 'owner', url: '/found/ABCD-EFGH-JKMN-PQRS', language: 'es' }));
    expect(scope.registration.showNotification).toHaveBeenLastCalledWith('De eigenaar heeft geantwoord', expect.objectContaining({ lang: 'nl' }));
  });

  it('ignores a push that is not one of ours', async () => {
    const { scope, dispatch } = fakeWorkerScope();
    await import(/* @vite-ignore */ workerModule);
    await dispatch('push', pushOf({ kind: 'new-message', author: 'owner', url: 'https://elsewhere.example/' }));
    expect(scope.registration.showNotification).not.toHaveBeenCalled();
  });

  it('focuses the thread when it is open, else takes another window of the app there, else opens one', async () => {
    const thread = 'https://homing.example/found/ABCD-EFGH-JKMN-PQRS';
    const notification = { close: vi.fn(), data: { url: '/found/ABCD-EFGH-JKMN-PQRS' } };
    const open = { url: thread, focus: vi.fn(), navigate: vi.fn() };
    let worker = fakeWorkerScope([{ url: 'https://homing.example/items', focus: vi.fn(), navigate: vi.fn() }, open]);
    await import(/* @vite-ignore */ workerModule);
    await worker.dispatch('notificationclick', { notification });
    expect(open.focus).toHaveBeenCalled();
    expect(notification.close).toHaveBeenCalled();

    vi.resetModules();
    const other = { url: 'https://homing.example/items', focus: vi.fn(), navigate: vi.fn(async () => ({ focus: other.focus })) };
    worker = fakeWorkerScope([other]);
    await import(/* @vite-ignore */ workerModule);
    await worker.dispatch('notificationclick', { notification });
    expect(other.navigate).toHaveBeenCalledWith(thread);
    expect(other.focus).toHaveBeenCalled();

    vi.resetModules();
    worker = fakeWorkerScope();
    await import(/* @vite-ignore */ workerModule);
    await worker.dispatch('notificationclick', { notification });
    expect(worker.scope.clients.openWindow).toHaveBeenCalledWith(thread);
  });

  it('tells an owner their lost item was scanned, near its city when known, one notification per item', async () => {
    const { scope, dispatch } = fakeWorkerScope();
    await import(/* @vite-ignore */ workerModule);
    const scan = { kind: 'scan-alert', url: '/item/ABCD-EFGH-JKMN-PQRS', scanned_at: '2026-11-20T14:05:00Z', country: 'NL' };
    await dispatch('push', pushOf({ ...scan, city: 'Amsterdam' }));
    expect(scope.registration.showNotification).toHaveBeenLastCalledWith('Your lost item was scanned', {
      body: 'Scanned just now near Amsterdam. Tap to see the scans.',
      icon: '/favicon.svg',
      lang: 'en',
      tag: '/item/ABCD-EFGH-JKMN-PQRS',
      data: { url: '/item/ABCD-EFGH-JKMN-PQRS' },
    });
    await dispatch('push', pushOf({ ...scan, city: null, language: 'nl' }));
    expect(scope.registration.showNotification).toHaveBeenLastCalledWith('Je verloren voorwerp is gescand', expect.objectContaining({ body: 'Zojuist gescand. Tik om de scans te zien.', lang: 'nl' }));
    await dispatch('push', pushOf({ ...scan, city: 'Sevilla', language: 'es' }));
    expect(scope.registration.showNotification).toHaveBeenLastCalledWith('Han escaneado tu objeto perdido', expect.objectContaining({ body: 'Escaneado ahora mismo cerca de Sevilla. Toca para ver los escaneos.' }));
  });

  it('ignores a scan alert that would open another site', async () => {
    const { scope, dispatch } = fakeWorkerScope();
    await import(/* @vite-ignore */ workerModule);
    await dispatch('push', pushOf({ kind: 'scan-alert', url: 'https://elsewhere.example/', scanned_at: '2026-11-20T14:05:00Z', city: 'Amsterdam', country: 'NL' }));
    await dispatch('push', pushOf({ kind: 'something-else', url: '/item/ABCD-EFGH-JKMN-PQRS' }));
    expect(scope.registration.showNotification).not.toHaveBeenCalled();
  });

  it('opens the item’s page when a scan alert is clicked', async () => {
    const worker = fakeWorkerScope();
    await import(/* @vite-ignore */ workerModule);
    await worker.dispatch('notificationclick', { notification: { close: vi.fn(), data: { url: '/item/ABCD-EFGH-JKMN-PQRS' } } });
    expect(worker.scope.clients.openWindow).toHaveBeenCalledWith('https://homing.example/item/ABCD-EFGH-JKMN-PQRS');
  });
});
