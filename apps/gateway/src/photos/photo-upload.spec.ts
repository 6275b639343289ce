import { connect } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { PHOTO_MAX_BYTES } from '@homing/contracts';
import { ApiError } from '../http/http-error';
import { passMultipartBodiesUnread, readPhotoUpload } from './photo-upload';

const BOUNDARY = 'photo-upload-boundary';

type Part = { name: string; value: string } | { name: string; file: Buffer; type: string };

function multipart(parts: Part[], { end = true } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = 'file' in part ? `form-data; name="${part.name}"; filename="photo"` : `form-data; name="${part.name}"`;
    const type = 'file' in part ? `\r\nContent-Type: ${part.type}` : '';
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`), 'file' in part ? part.file : Buffer.from(part.value), Buffer.from('\r\n'));
  }
  if (end) chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

const CODE = { name: 'code', value: 'ABCD-EFGH-JKMN-PQRS' };
const photo = (bytes = 1000, type = 'image/jpeg'): Part => ({ name: 'file', file: Buffer.alloc(bytes, 7), type });

describe('readPhotoUpload', () => {
  let app: FastifyInstance;
  const refused: string[] = [];

  beforeAll(async () => {
    app = Fastify();
    passMultipartBodiesUnread(app);
    // What the gateway's error filter does: an ApiError's status and response code.
    app.post('/upload', async (request, reply) => {
      try {
        const { code, file } = await readPhotoUpload(request);
        return { code, bytes: file.length };
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        const body = error.getResponse() as { response_code: string; validation?: unknown };
        refused.push(body.response_code);
        return reply.status(error.getStatus()).send({ response_code: body.response_code, validation: body.validation });
      }
    });
    app.post('/json', async (request) => ({ body: request.body ?? null }));
    await app.ready();
  });

  afterAll(() => app.close());

  const post = (payload: Buffer | string, contentType = `multipart/form-data; boundary=${BOUNDARY}`, url = '/upload') =>
    app.inject({ method: 'POST', url, headers: { 'content-type': contentType }, payload });

  it('reads the code and the photo', async () => {
    const answer = await post(multipart([CODE, photo(5000)]));
    expect([answer.statusCode, answer.json()]).toEqual([200, { code: CODE.value, bytes: 5000 }]);
  });

  it('takes a photo of exactly 5 MB and refuses one byte more with 413', async () => {
    expect((await post(multipart([CODE, photo(PHOTO_MAX_BYTES)]))).json()).toEqual({ code: CODE.value, bytes: PHOTO_MAX_BYTES });
    const over = await post(multipart([CODE, photo(PHOTO_MAX_BYTES + 1)]));
    expect([over.statusCode, over.json().response_code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });

  it('refuses a second file, and more parts than an upload has, with 413', async () => {
    for (const parts of [[CODE, photo(), photo()], [CODE, ...Array.from({ length: 5 }, (_, index) => ({ name: `extra${index}`, value: 'x' }))]]) {
      const answer = await post(multipart(parts));
      expect([answer.statusCode, answer.json().response_code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    }
  });

  it('answers 422 for a file of another type or field, and for missing fields', async () => {
    const gif = await post(multipart([CODE, photo(100, 'image/gif')]));
    expect([gif.statusCode, gif.json()]).toEqual([422, { response_code: 'VALIDATION_ERROR', validation: { file: 'invalid' } }]);
    const elsewhere = await post(multipart([CODE, { name: 'picture', file: Buffer.alloc(10), type: 'image/png' }]));
    expect(elsewhere.json().validation).toEqual({ file: 'invalid' });
    expect((await post(multipart([photo()]))).json()).toEqual({ response_code: 'VALIDATION_ERROR', validation: { code: 'required' } });
    expect((await post(multipart([CODE]))).json()).toEqual({ response_code: 'VALIDATION_ERROR', validation: { file: 'required' } });
    expect((await post('')).json()).toEqual({ response_code: 'VALIDATION_ERROR', validation: { code: 'required', file: 'required' } });
  });

  it('answers 400 for a body that is not the multipart it says, or has no boundary', async () => {
    for (const [payload, contentType] of [
      ['{"code":"x"}', 'multipart/form-data; boundary=x'],
      [multipart([CODE, photo()], { end: false }), undefined],
      [multipart([CODE, photo()]), 'multipart/form-data'],
    ] as const) {
      const answer = await post(payload, contentType);
      expect([answer.statusCode, answer.json().response_code]).toEqual([400, 'MALFORMED_REQUEST']);
    }
  });

  it('answers 415 for another body, and leaves a multipart body sent elsewhere unread', async () => {
    const json = await post('{"code":"x"}', 'application/json');
    expect([json.statusCode, json.json().response_code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    expect((await post(multipart([CODE, photo()]), undefined, '/json')).json()).toEqual({ body: null });
  });

  it('gives up on an upload the client stops sending', async () => {
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(address);
    refused.length = 0;
    const half = multipart([CODE, photo(100_000)]).subarray(0, 50_000);
    const socket = connect(Number(port), '127.0.0.1');
    socket.write(`POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 100400\r\n\r\n`);
    socket.write(half);
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    for (let waited = 0; refused.length === 0 && waited < 2000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(refused).toEqual(['MALFORMED_REQUEST']);
  });
});
