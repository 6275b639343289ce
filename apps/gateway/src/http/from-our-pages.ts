/** The headers a browser sends that say which site a request comes from. */
export interface RequestSiteHeaders {
  origin?: string;
  'sec-fetch-site'?: string;
}

/** Those headers of a request (a header sent twice counts as absent). */
export function requestSiteHeaders(headers: Record<string, string | string[] | undefined>): RequestSiteHeaders {
  const one = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);
  return { origin: one(headers.origin), 'sec-fetch-site': one(headers['sec-fetch-site']) };
}

/**
 * Whether a request comes from our own pages rather than from a form or script on another site. A POST without a body
 * needs no preflight, so another site's page could send one (a false scan alert; a passkey challenge made in bulk).
 * A browser says where a request comes from (`Sec-Fetch-Site`, else `Origin`); a client that says neither is no
 * browser page, and is limited like any caller.
 */
export function fromOurPages(headers: RequestSiteHeaders, publicOrigin: string): boolean {
  const site = headers['sec-fetch-site'];
  if (typeof site === 'string') return site === 'same-origin' || site === 'none';
  const origin = headers.origin;
  return typeof origin !== 'string' || origin === publicOrigin;
}
