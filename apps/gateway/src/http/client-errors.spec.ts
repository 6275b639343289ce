import { PassThrough } from 'node:stream';
import type { Socket } from 'node:net';
import { answerClientError } from './client-errors';

function fakeSocket(): { socket: Socket; written: () => string } {
  const stream = new PassThrough();
  let written = '';
  stream.on('data', (chunk: Buffer) => (written += chunk.toString()));
  return { socket: Object.assign(stream, { writable: true }) as unknown as Socket, written: () => written };
}

describe('answerClientError', () => {
  it('answers over-long headers with 431 in the contract format, with the security headers, and closes', () => {
    const { socket, written } = fakeSocket();
    answerClientError(Object.assign(new Error('Header overflow'), { code: 'HPE_HEADER_OVERFLOW' }), socket);
    const [head, body] = written().split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head).toContain('x-content-type-options: nosniff');
    expect(head).toContain('connection: close');
    expect(JSON.parse(body)).toEqual({ response_code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) });
  });

  it('answers any other parse error with 400 MALFORMED_REQUEST', () => {
    const { socket, written } = fakeSocket();
    answerClientError(Object.assign(new Error('Invalid method'), { code: 'HPE_INVALID_METHOD' }), socket);
    expect(written()).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(written().split('\r\n\r\n')[1]).response_code).toBe('MALFORMED_REQUEST');
  });
});
