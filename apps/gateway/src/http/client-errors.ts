import type { Socket } from 'node:net';
import { ResponseCode, type HttpErrorBody } from '@homing/contracts';
import { SECURITY_HEADERS } from './security-headers';

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers over the size limit, a malformed request
 * line): answered in the HTTP contract's format with the security headers, then the connection is closed.
 * Fastify's default writes its own `{error, statusCode}` shape.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const headersTooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = headersTooLarge ? 431 : 400;
  const body: HttpErrorBody = headersTooLarge
    ? { response_code: ResponseCode.PAYLOAD_TOO_LARGE, message: 'The request headers (or URL) are too large.' }
    : { response_code: ResponseCode.MALFORMED_REQUEST, message: 'The request is malformed.' };
  const json = JSON.stringify(body);
  const headers = Object.entries({ ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(json)), connection: 'close' })
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n');
  socket.end(`HTTP/1.1 ${status} ${headersTooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n${headers}\r\n\r\n${json}`);
}
