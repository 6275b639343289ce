import { vi } from 'vitest';

import { jsonResponse } from './render-app';

export type Handler = (url: string, init: RequestInit) => Response | Promise<Response>;

/** A fake gateway: `'METHOD /path'` → answer; QR images answer a blank SVG, anything else 404. */
export function gateway(routes: Record<string, Handler>) {
  return vi.fn<typeof fetch>(async (input, init = {}) => {
    const url = String(input);
    const handler = routes[`${init.method ?? 'GET'} ${url.split('?')[0]}`];
    if (handler) return handler(url, init);
    if (url.startsWith('/qr/')) return new Response(btoa('<svg xmlns="http://www.w3.org/2000/svg"/>'));
    return jsonResponse(404, { response_code: 'NOT_FOUND', message: 'x' });
  });
}

/** The headers a call was made with, by lower-case name. */
export function headersOf(init: RequestInit | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>).map(([name, value]) => [name.toLowerCase(), value]));
}

/** The calls made to a path, as `[url, init]`. */
export function callsTo(fetch: ReturnType<typeof gateway>, method: string, path: string) {
  return fetch.mock.calls.filter(([input, init]) => (init?.method ?? 'GET') === method && String(input).split('?')[0] === path);
}
