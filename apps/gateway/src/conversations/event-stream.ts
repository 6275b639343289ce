import type { FastifyReply } from 'fastify';
import { ResponseCode } from '@homing/contracts';
import { ApiError } from '../http/http-error';
import { SECURITY_HEADERS } from '../http/security-headers';
import type { EventSink } from './message-streams';

// How long a browser's EventSource waits before reconnecting (with Last-Event-ID) after a stream ends.
const RECONNECT_MS = 3000;

/**
 * `Last-Event-ID`, which a reconnecting client sends back as the id of the last message it got. A message id or
 * nothing; anything else is refused (422), as the stream cannot know where to resume.
 */
export function parseLastEventId(header: string | undefined): number | undefined {
  if (header === undefined || header === '') return undefined;
  if (!/^\d{1,15}$/.test(header)) throw new ApiError(422, ResponseCode.VALIDATION_ERROR, undefined, { 'Last-Event-ID': 'invalid' });
  return Number(header);
}

/**
 * Takes the response over from Fastify and starts a server-sent event stream on it. The usual onSend hooks do not run
 * for it, so the security headers are written here.
 */
export function openEventStream(reply: FastifyReply): EventSink {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    ...SECURITY_HEADERS,
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    // Proxies such as nginx would otherwise buffer the stream.
    'x-accel-buffering': 'no',
  });
  raw.write(`retry: ${RECONNECT_MS}\n\n`);
  return {
    write(chunk) {
      if (!raw.writableEnded) raw.write(chunk);
      return raw.writableLength;
    },
    end() {
      if (!raw.writableEnded) raw.end();
    },
    onClose(listener) {
      if (raw.destroyed || raw.writableFinished) listener();
      else raw.once('close', listener);
    },
  };
}
