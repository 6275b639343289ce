import { CORRELATION_HEADER } from '@homing/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { matchesEtag, sendTagged, type TaggedBody } from './etag';
import { securityHeadersFor } from './security-headers';

/**
 * Answers on the hottest routes (a cached scan, a rendered QR image: B2, B6) are written straight to the socket with a
 * header block made once: the route's own headers and the security headers the onSend hook would add
 * (`securityHeadersFor`, the hook's rule). Per request, Fastify's reply would copy the headers into an object, run the
 * onSend hook over a dozen of them and check and serialise them again. onResponse hooks still run, so the request is
 * counted in the metrics and logged as any other. `prebuilt-answer.spec.ts` holds both ways' answers equal.
 */

/** Header names and values in turn, as `writeHead` takes them: `headers` (lower-case names) and the security headers. */
export function prebuiltHead(headers: Readonly<Record<string, string>>, isApi: boolean): readonly string[] {
  return Object.entries({ ...headers, ...securityHeadersFor(headers, isApi) }).flat();
}

/** Writes a 200 with `head`, the body's length and the request's own correlation id (no body to a HEAD request). */
export function writeWhole(request: FastifyRequest, reply: FastifyReply, head: readonly string[], body: Buffer | string): void {
  reply.hijack();
  const all = head.slice();
  all.push('content-length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.length), CORRELATION_HEADER, request.id);
  reply.raw.writeHead(200, all);
  // Node's server drops a HEAD answer's body too; said here, not left to it.
  reply.raw.end(request.method === 'HEAD' ? undefined : body);
}

/** A 200 that never changes under its ETag (a rendered QR image), with its head made once. */
export class PrebuiltAnswer implements TaggedBody {
  private readonly head: readonly string[];

  constructor(
    readonly etag: string,
    readonly headers: Readonly<Record<string, string>>,
    readonly body: Buffer,
    isApi: boolean,
  ) {
    this.head = prebuiltHead({ ...headers, etag }, isApi);
  }

  /** Sends the answer, or 304 through Fastify's reply (and its hooks) when the request's `If-None-Match` holds the ETag. */
  send(request: FastifyRequest, reply: FastifyReply): void {
    const ifNoneMatch = request.headers['if-none-match'];
    if (typeof ifNoneMatch === 'string' && matchesEtag(ifNoneMatch, this.etag)) return sendTagged(reply, ifNoneMatch, this);
    writeWhole(request, reply, this.head, this.body);
  }
}
