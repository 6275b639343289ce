import { once } from 'node:events';
import type { FastifyReply } from 'fastify';
import { ResponseCode, type TagBatchRecord } from '@homing/contracts';
import { RpcError, type RpcClient } from '@homing/platform';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import type { ApiError } from '../http/http-error';
import { csvField, TagBatchesService } from './tag-batches.service';

const ADMIN = { id: '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10', isAdmin: true } as AuthenticatedUser;
const GONE = '1b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10';
const batch = (id: string, createdBy: string | null, count = 3): TagBatchRecord => ({
  id,
  label: 'Keyrings, März',
  count,
  pages: Math.ceil(count / 24),
  created_at: '2026-03-01T10:00:00.000Z',
  claimed: 1,
  createdBy,
});
const codeOf = (index: number) => `A${String(index).padStart(15, '0')}`;

function setUp(records: TagBatchRecord[], { failCodesAfter = Infinity } = {}) {
  const calls: Array<[string, unknown]> = [];
  const rpc = {
    request: jest.fn(async (subject: string, request: Record<string, unknown>) => {
      calls.push([subject, request]);
      if (subject === 'items.rpc.list-tag-batches') return { batches: records };
      if (subject === 'items.rpc.get-tag-batch') {
        const found = records.find((record) => record.id === request['batchId']);
        if (!found) throw RpcError.notFound(ResponseCode.NOT_FOUND, 'No such tag batch.');
        return found;
      }
      if (subject === 'items.rpc.tag-batch-codes') {
        const all = Array.from({ length: records[0].count }, (_, index) => codeOf(index));
        const start = request['after'] ? all.indexOf(request['after'] as string) + 1 : 0;
        if (start >= failCodesAfter) throw new Error('items went away');
        return { codes: all.slice(start, start + (request['limit'] as number)) };
      }
      if (subject === 'identity.rpc.get-user') {
        if (request['userId'] === GONE) throw RpcError.notFound(ResponseCode.NOT_FOUND, 'No such user.');
        return { id: request['userId'], email: 'olga@example.test', language: 'en' };
      }
      throw new Error(`unexpected ${subject}`);
    }),
  };
  const service = new TagBatchesService(rpc as unknown as RpcClient, { PUBLIC_URL: 'https://homing.example/', RELAY_DOMAIN: 'relay.homing.example' });
  return { service, calls };
}

/** What the service sets on the reply before answering (Retry-After on a refusal). */
interface RecordedReply {
  header(name: string, value: string): RecordedReply;
  sent: Record<string, string>;
}
function replyHeaders(): RecordedReply & FastifyReply {
  const reply: RecordedReply = {
    sent: {},
    header(name, value) {
      reply.sent[name.toLowerCase()] = value;
      return reply;
    },
  };
  return reply as RecordedReply & FastifyReply;
}

async function read(body: AsyncIterable<Buffer | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

describe('TagBatchesService', () => {
  it('refuses anyone but an admin before asking items', async () => {
    const { service, calls } = setUp([batch('b1', ADMIN.id)]);
    const user = { ...ADMIN, isAdmin: false };
    for (const attempt of [service.list(user), service.get(user, 'b1'), service.pdf(user, 'b1', replyHeaders()), service.csv(user, 'b1')]) {
      await expect(attempt).rejects.toMatchObject({ status: 403 });
    }
    expect(calls).toEqual([]);
  });

  it('names each minting admin by e-mail, asking identity once per admin, and null for an account that is gone', async () => {
    const { service, calls } = setUp([batch('b1', ADMIN.id), batch('b2', ADMIN.id), batch('b3', GONE)]);
    const { batches } = await service.list(ADMIN);
    expect(batches.map((listed) => [listed.id, listed.created_by, listed.claimed])).toEqual([
      ['b1', 'olga@example.test', 1],
      ['b2', 'olga@example.test', 1],
      ['b3', null, 1],
    ]);
    expect(batches[0]).not.toHaveProperty('createdBy');
    expect(calls.filter(([subject]) => subject === 'identity.rpc.get-user')).toHaveLength(2);
  });

  it('writes a CSV row per tag with the finder URL its QR code opens, paging through the codes', async () => {
    const { service, calls } = setUp([batch('b1', ADMIN.id, 2500)]);
    const file = await service.csv(ADMIN, 'b1');
    expect(file.filename).toBe('tag-batch-keyrings-marz.csv');
    const lines = (await read(file.body)).toString('utf8').trimEnd().split('\r\n');
    expect(lines).toHaveLength(2501);
    expect(lines[0]).toBe('code,finder_url,qr_url');
    expect(lines[1]).toBe('A000-0000-0000-0000,https://homing.example/found/A000-0000-0000-0000,https://homing.example/qr/A000-0000-0000-0000');
    expect(calls.filter(([subject]) => subject === 'items.rpc.tag-batch-codes')).toHaveLength(3);
  });

  it('quotes CSV fields that need it', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"\n')).toBe('"say ""hi""\n"');
  });

  it('answers 404 for an unknown batch before any file begins', async () => {
    const { service } = setUp([batch('b1', ADMIN.id)]);
    await expect(service.pdf(ADMIN, 'nope', replyHeaders())).rejects.toMatchObject({ body: { status: 404 } });
  });

  it('draws one PDF page per 24 tags', async () => {
    const { service } = setUp([batch('b1', ADMIN.id, 50)]);
    const file = await service.pdf(ADMIN, 'b1', replyHeaders());
    const pdf = (await read(file.body)).toString('latin1');
    expect(pdf.startsWith('%PDF-')).toBe(true);
    expect(pdf.match(/\/Type \/Page\b/g)).toHaveLength(3);
    expect(pdf).toContain('/Count 3');
  });

  it('draws at most two PDFs at once in this process: a third meanwhile is refused 503 SERVICE_BUSY with Retry-After, asking items nothing', async () => {
    const { service, calls } = setUp([batch('b1', ADMIN.id, 30)]);
    // Unread, each file's render is in flight: it goes at its reader's pace.
    const held = [await service.pdf(ADMIN, 'b1', replyHeaders()), await service.pdf(ADMIN, 'b1', replyHeaders())];
    const asked = calls.length;
    const refusedReply = replyHeaders();
    const refused = await service.pdf(ADMIN, 'b1', refusedReply).then(
      () => null,
      (error: ApiError) => ({ status: error.getStatus(), body: error.getResponse() }),
    );
    expect(refused).toEqual({ status: 503, body: { response_code: ResponseCode.SERVICE_BUSY, message: expect.any(String) } });
    expect(Number(refusedReply.sent['retry-after'])).toBeGreaterThan(0);
    expect(calls).toHaveLength(asked);
    // The CSV costs no drawing: not limited.
    await expect(service.csv(ADMIN, 'b1')).resolves.toBeDefined();

    // The renders in flight complete whole, and then their places are free again.
    for (const file of held) expect((await read(file.body)).toString('latin1')).toMatch(/^%PDF-[\s\S]*\/Count 2[\s\S]*%%EOF\s*$/);
    const next = [await service.pdf(ADMIN, 'b1', replyHeaders()), await service.pdf(ADMIN, 'b1', replyHeaders())];
    await expect(service.pdf(ADMIN, 'b1', replyHeaders())).rejects.toMatchObject({ status: 503 });
    for (const file of next) await read(file.body);
  });

  it('frees a render’s place when its batch is unknown, its reader goes away, or items fails', async () => {
    const { service } = setUp([batch('b1', ADMIN.id, 30)]);
    // Unknown batches: refused 404 without keeping a place.
    for (let attempt = 0; attempt < 3; attempt += 1) await expect(service.pdf(ADMIN, 'nope', replyHeaders())).rejects.toMatchObject({ body: { status: 404 } });
    // The reader goes away before the first byte, and after it (Fastify destroys the stream when the client leaves).
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const file = await service.pdf(ADMIN, 'b1', replyHeaders());
      file.body.destroy();
      await once(file.body, 'close');
    }
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const file = await service.pdf(ADMIN, 'b1', replyHeaders());
      // Left mid-way, the stream is destroyed with an AbortError: only its close is awaited.
      const closed = new Promise((resolve) => file.body.once('close', resolve));
      for await (const chunk of file.body) if (chunk) break;
      // The place is given back once the page being drawn is done and the render has stopped.
      await closed;
    }
    const last = [await service.pdf(ADMIN, 'b1', replyHeaders()), await service.pdf(ADMIN, 'b1', replyHeaders())];
    for (const file of last) file.body.destroy();

    // Items fails before the file begins: each attempt reaches items again rather than being refused busy.
    const failing = setUp([batch('b1', ADMIN.id, 30)], { failCodesAfter: 0 });
    for (let attempt = 0; attempt < 3; attempt += 1) await expect(failing.service.pdf(ADMIN, 'b1', replyHeaders())).rejects.toThrow('items went away');
  });

  it('fails the file, rather than ending it short, when the codes stop coming mid-way', async () => {
    const { service } = setUp([batch('b1', ADMIN.id, 2500)], { failCodesAfter: 1000 });
    const file = await service.csv(ADMIN, 'b1');
    await expect(read(file.body)).rejects.toThrow('items went away');
  });
});
