/**
 * Where a logged-in user goes from a login page (spec §2): with `c` to the found page of that code, with `ec` to the
 * item page of that code, otherwise to their items.
 */
export function afterLoginPath(query: URLSearchParams): string {
  const code = query.get('c');
  if (code) return `/found/${encodeURIComponent(code)}`;
  const editCode = query.get('ec');
  if (editCode) return `/item/${encodeURIComponent(editCode)}`;
  return '/items';
}

const CARRIED = ['c', 'ec'] as const;

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

/** Keeps the login's `c`/`ec` for the code screen when a login code is asked for (and forgets an older one). */
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

function keptTarget(store: Storage | null): { c?: unknown; ec?: unknown; at?: unknown } | null {
  try {
    const value: unknown = JSON.parse(store?.getItem(PENDING_KEY) ?? 'null');
    return typeof value === 'object' ? (value as { c?: unknown; ec?: unknown; at?: unknown } | null) : null;
  } catch {
    return null;
  }
}
