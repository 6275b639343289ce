// Pages a login may return to by `next` (e.g. Account's "Log in again" before adding a passkey): a fixed list, so a
// crafted link cannot send a user elsewhere.
const RETURN_PATHS = new Set(['/account']);

/**
 * Where a logged-in user goes from a login page (spec §2): with `c` to the found page of that code, with `ec` to the
 * item page of that code, with `next` to that page of the app, otherwise to their items.
 */
export function afterLoginPath(query: URLSearchParams): string {
  const code = query.get('c');
  if (code) return `/found/${encodeURIComponent(code)}`;
  const editCode = query.get('ec');
  if (editCode) return `/item/${encodeURIComponent(editCode)}`;
  const next = query.get('next');
  if (next && RETURN_PATHS.has(next)) return next;
  return '/items';
}

/** The login page that returns to `path` (one of RETURN_PATHS) afterwards. */
export function loginReturningTo(path: string): string {
  return `/login?${new URLSearchParams({ next: path }).toString()}`;
}

const CARRIED = ['c', 'ec', 'next'] as const;

/** The query a login screen hands to the next one: the item codes travel along, plus an e-mail if given. */
export function carriedQuery(query: URLSearchParams, email?: string): string {
  const next = new URLSearchParams();
  for (const name of CARRIED) {
    const value = query.get(name);
    if (value) next.set(name, value);
  }
  if (email) next.set('email', email);
  const text = next.toString();
  return text ? `?${text}` : '';
}

// The login code's e-mail links to `/login/code?code=…`, often opened in another tab: where the login started (a
// thread link's `c`, an activation's `ec`) is kept in this browser for as long as the code works.
const PENDING_KEY = 'homing.afterLogin';
const PENDING_TTL_MS = 10 * 60_000;

type Storage = Pick<globalThis.Storage, 'getItem' | 'setItem' | 'removeItem'>;

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** Keeps the login's `c`/`ec`/`next` for the code screen when a login code is asked for (and forgets an older one). */
export function rememberLoginTarget(query: URLSearchParams, now = Date.now(), store = storage()): void {
  const name = CARRIED.find((key) => query.get(key));
  try {
    if (name) store?.setItem(PENDING_KEY, JSON.stringify({ [name]: query.get(name), at: now }));
    else store?.removeItem(PENDING_KEY);
  } catch {
    // Storage full or refused: the code screen then goes to the items.
  }
}

/** Forgets the kept `c`/`ec` once the login is done. */
export function forgetLoginTarget(store = storage()): void {
  try {
    store?.removeItem(PENDING_KEY);
  } catch {
    // Nothing kept.
  }
}

/** The query with the login's `c`/`ec`: its own if it has one, else the one kept while the code works. */
export function withLoginTarget(query: URLSearchParams, now = Date.now(), store = storage()): URLSearchParams {
  if (CARRIED.some((key) => query.get(key))) return query;
  const kept = keptTarget(store);
  if (!kept || typeof kept.at !== 'number' || now - kept.at > PENDING_TTL_MS || now < kept.at) return query;
  const next = new URLSearchParams(query);
  for (const key of CARRIED) {
    const value = kept[key];
    if (typeof value === 'string' && value) next.set(key, value);
  }
  return next;
}

type KeptTarget = Partial<Record<(typeof CARRIED)[number] | 'at', unknown>>;

function keptTarget(store: Storage | null): KeptTarget | null {
  try {
    const value: unknown = JSON.parse(store?.getItem(PENDING_KEY) ?? 'null');
    return typeof value === 'object' ? (value as KeptTarget | null) : null;
  } catch {
    return null;
  }
}
