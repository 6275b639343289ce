import type { FastifyReply } from 'fastify';

/** `If-None-Match` holds a list of tags (weak ones compare equal, RFC 9110 §13.1.2) or `*`. */
export function matchesEtag(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

/** A body that never changes under its ETag, with the headers it goes with (content type, caching). */
export interface TaggedBody {
  body: Buffer | string;
  etag: string;
  headers: Record<string, string>;
}

/** Sends the body, or 304 without it when the client's `If-None-Match` already holds its ETag. */
export function sendTagged(reply: FastifyReply, ifNoneMatch: string | string[] | undefined, { body, etag, headers }: TaggedBody): void {
  void reply.headers({ ...headers, etag });
  if (typeof ifNoneMatch === 'string' && matchesEtag(ifNoneMatch, etag)) {
    void reply.status(304).send();
    return;
  }
  void reply.status(200).send(body);
}
