import type { FastifyInstance } from 'fastify';

// What @fastify/helmet 13 sent with this gateway's options, computed once at start-up instead of on every request.
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  // 0 switches off the legacy XSS auditor, which itself opened leaks (OWASP); the CSP does its job.
  'x-xss-protection': '0',
});

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // Swagger UI and React set inline style attributes.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join(';');

/**
 * An SVG image opened on its own is a document too, and needs nothing at all: ours (QR images, tag sheets) are shapes
 * and text in presentation attributes, with no script, style sheet, font, link or form. So nothing may load or run in
 * one, and `sandbox` gives it an origin of its own: an SVG that somehow carried a script could reach nothing of ours.
 * The directives that do not fall back to `default-src` are named, as in the pages' policy.
 */
export const IMAGE_CONTENT_SECURITY_POLICY = ["default-src 'none'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'none'", 'sandbox'].join(';');

// A CSP governs documents a browser renders (the web app, Swagger UI, an SVG opened on its own); JSON needs none.
const PAGE_TYPE = /^\s*text\/html/i;
const SVG_TYPE = /^\s*image\/svg\+xml/i;

/**
 * The one header an answer gets for what it is: a page (the web app, Swagger UI) the pages' Content-Security-Policy,
 * an SVG image (a document when opened on its own) one that allows nothing; an API answer that chose no cache policy
 * `no-store` (API answers are personal or change at any moment: never stored by a browser or proxy); anything else
 * none.
 */
function headerForKind(contentType: unknown, isApi: boolean, hasCacheControl: boolean): readonly [string, string] | undefined {
  if (typeof contentType === 'string' && PAGE_TYPE.test(contentType)) return ['content-security-policy', CONTENT_SECURITY_POLICY];
  if (typeof contentType === 'string' && SVG_TYPE.test(contentType)) return ['content-security-policy', IMAGE_CONTENT_SECURITY_POLICY];
  if (isApi && !hasCacheControl) return ['cache-control', 'no-store'];
  return undefined;
}

// A page may loosen no-referrer to same-origin (the finder page: with no-referrer, a browser sends its form posts with
// `Origin: null`, and the same-origin check could tell nothing).
const keepsOwnReferrerPolicy = (own: unknown): boolean => own === 'same-origin';

/**
 * The headers the onSend hook below adds to an answer that carries `headers` (lower-case names), on a path inside the
 * API (`isApi`) or outside it, by the same rules: for an answer written whole past the hook (`PrebuiltAnswer`).
 */
export function securityHeadersFor(headers: Readonly<Record<string, string>>, isApi: boolean): Record<string, string> {
  const added: Record<string, string> = { ...SECURITY_HEADERS };
  if (keepsOwnReferrerPolicy(headers['referrer-policy'])) added['referrer-policy'] = headers['referrer-policy'];
  const kind = headerForKind(headers['content-type'], isApi, headers['cache-control'] !== undefined);
  if (kind) added[kind[0]] = kind[1];
  return added;
}

/**
 * The path of a request's target: the target itself in the usual origin form (`/api/v1/…`), the part after the
 * authority in absolute form (`http://host/api/v1/…`, which HTTP/1.1 servers must take and Fastify's router routes
 * as the path). Rules that go by the path read it here, so that no form of the target escapes them.
 */
export function pathOfTarget(url: string): string {
  if (url.charCodeAt(0) === 47 /* '/' */) return url;
  const authority = url.indexOf('//');
  const path = authority < 0 ? -1 : url.indexOf('/', authority + 2);
  return path < 0 ? '/' : url.slice(path);
}

/**
 * Sets the security headers on every answer, the Content-Security-Policy on documents, and no-store on API answers.
 * In onSend, so answers Fastify makes before any route or onRequest hook (router errors) carry them too.
 */
export function registerSecurityHeaders(fastify: FastifyInstance, apiPathPrefix: string): void {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const ownReferrerPolicy = reply.getHeader('referrer-policy');
    void reply.headers(SECURITY_HEADERS);
    if (keepsOwnReferrerPolicy(ownReferrerPolicy)) void reply.header('referrer-policy', ownReferrerPolicy);
    const kind = headerForKind(reply.getHeader('content-type'), pathOfTarget(request.url).startsWith(apiPathPrefix), reply.hasHeader('cache-control'));
    if (kind) void reply.header(kind[0], kind[1]);
    done(null, payload);
  });
}
