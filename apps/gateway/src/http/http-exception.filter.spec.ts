import { Logger, type ArgumentsHost } from '@nestjs/common';
import { HttpExceptionFilter } from './http-exception.filter';

/** A Fastify reply that records what was sent. */
function recordingReply(): { sent: unknown[]; status: number; reply: object } {
  const record = { sent: [] as unknown[], status: 0, reply: {} };
  const reply = {
    sent: false,
    status: (code: number) => ((record.status = code), reply),
    headers: () => reply,
    type: () => reply,
    send: (body: unknown) => (record.sent.push(body), reply),
  };
  record.reply = reply;
  return record;
}

describe('HttpExceptionFilter', () => {
  it('answers a bug with a bare 500 and logs the route, never the URL with its codes and addresses', () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const request = { method: 'GET', url: '/api/v1/magic-link?email=someone%40example.test', routeOptions: { url: '/api/v1/magic-link' } };
    const answer = recordingReply();
    const host = { switchToHttp: () => ({ getRequest: () => request, getResponse: () => answer.reply }) } as unknown as ArgumentsHost;

    new HttpExceptionFilter().catch(new TypeError('a bug'), host);

    expect(answer.status).toBe(500);
    expect(logged).toHaveBeenCalledWith(expect.objectContaining({ route: 'GET /api/v1/magic-link' }), 'unhandled error');
    expect(JSON.stringify(logged.mock.calls)).not.toContain('example.test');
    logged.mockRestore();
  });
});
