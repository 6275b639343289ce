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

/** The query a login screen hands to the next one: the item codes travel along, plus an e-mail if given. */
export function carriedQuery(query: URLSearchParams, email?: string): string {
  const next = new URLSearchParams();
  for (const name of ['c', 'ec']) {
    const value = query.get(name);
    if (value) next.set(name, value);
  }
  if (email) next.set('email', email);
  const text = next.toString();
  return text ? `?${text}` : '';
}
