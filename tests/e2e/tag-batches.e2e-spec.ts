import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpErrorBody, TagBatch } from '@homing/contracts';
import { runServiceCommand } from '@homing/testing';
import { testAccessToken } from '../support/access-tokens';
import { decodeQrSvg } from '../support/qr-decode';
import { startStack, type Stack } from '../support/stack';

const PUBLIC_URL = 'https://homing.example';

/** The QR codes of a sheet page, decoded, and the codes printed on it. */
function readSheet(svg: string): { urls: Array<string | null>; printed: string[] } {
  const urls = svg.split('<svg x=').slice(1).map((element) => decodeQrSvg(element.slice(0, element.indexOf('</svg>'))));
  const printed = [...svg.matchAll(/>([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})<\/text>/g)].map((match) => match[1]);
  return { urls, printed };
}

// Admins mint tags in batches and print them, over HTTP and from the command line.
describe('tag batches', () => {
  let stack: Stack;
  let api: string;
  const admin = testAccessToken({ isAdmin: true });
  // Identity confirms an admin's rights on every admin request: the tokens' users are admins in its table.
  const recordAdmin = ({ userId }: { userId: string }) =>
    stack.db.query(`INSERT INTO "${stack.schemaOf('identity')}".users (id, email, is_admin) VALUES ($1, $2, true)`, [userId, `${userId}@example.test`]);
  const items = () => `"${stack.schemaOf('items')}".items`;

  beforeAll(async () => {
    stack = await startStack({ env: { items: { PUBLIC_URL } } });
    ({ api } = stack);
    await recordAdmin(admin);
  });

  afterAll(() => stack?.stop());

  const mint = (body: unknown, token = admin.token, idempotencyKey?: string) =>
    fetch(`${api}/admin/tag-batches`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }) },
      body: JSON.stringify(body),
    });
  const batchesLabelled = async (label: string) =>
    (await stack.db.query(`SELECT id FROM "${stack.schemaOf('items')}".tag_batches WHERE label = $1`, [label])).rows.map((row: { id: string }) => row.id);
  const tagsOf = async (batchIds: string[]) => (await stack.db.query(`SELECT count(*)::int AS n FROM ${items()} WHERE batch_id = ANY($1::uuid[])`, [batchIds])).rows[0].n as number;
  const sheet = (id: string, query = '', token = admin.token) => fetch(`${api}/admin/tag-batches/${id}/sheet${query}`, { headers: { authorization: `Bearer ${token}` } });

  it('mints unclaimed tags that finders can already scan', async () => {
    const response = await mint({ count: 30, label: 'Stickers, March' });
    expect(response.status).toBe(201);
    const batch = (await response.json()) as TagBatch;
    expect(batch).toEqual({ id: expect.any(String), label: 'Stickers, March', count: 30, pages: 2, created_at: expect.any(String) });
    const { rows } = await stack.db.query(`SELECT code, owner_user_id, version FROM ${items()} WHERE batch_id = $1`, [batch.id]);
    expect(rows).toHaveLength(30);
    expect(rows.every((row: { owner_user_id: string | null; version: number }) => row.owner_user_id === null && row.version === 0)).toBe(true);
    const scanned = await fetch(`${api}/items/${rows[0].code}`);
    expect(await scanned.json()).toMatchObject({ activated: false, name: null });
  });

  it('mints up to 10,000 tags at once', async () => {
    const response = await mint({ count: 10_000, label: 'Keyrings' });
    expect(response.status).toBe(201);
    const batch = (await response.json()) as TagBatch;
    expect(batch.pages).toBe(417);
    const { rows } = await stack.db.query(`SELECT count(DISTINCT code)::int AS n FROM ${items()} WHERE batch_id = $1`, [batch.id]);
    expect(rows[0].n).toBe(10_000);
  });

  it('mints one batch for a request retried with the same Idempotency-Key, answering the retry as the first', async () => {
    const body = { count: 40, label: `Retried ${randomUUID()}` };
    const key = `mint-${randomUUID()}`;
    const first = await mint(body, admin.token, key);
    // The admin's client timed out (504) and sends the same request again.
    const retry = await mint(body, admin.token, key);
    expect([first.status, retry.status]).toEqual([201, 201]);
    const [created, replayed] = (await Promise.all([first.json(), retry.json()])) as TagBatch[];
    expect(replayed).toEqual(created);
    expect(await batchesLabelled(body.label)).toEqual([created.id]);
    expect(await tagsOf([created.id])).toBe(40);

    // The same key with another body is a client bug: refused, nothing minted.
    const reused = await mint({ ...body, count: 41 }, admin.token, key);
    expect(reused.status).toBe(422);
    expect(((await reused.json()) as HttpErrorBody).response_code).toBe('IDEMPOTENCY_KEY_REUSED');
    // Another admin's key is their own.
    const otherAdmin = testAccessToken({ isAdmin: true });
    await recordAdmin(otherAdmin);
    const other = await mint(body, otherAdmin.token, key);
    expect(other.status).toBe(201);
    expect(((await other.json()) as TagBatch).id).not.toBe(created.id);
    expect(await batchesLabelled(body.label)).toHaveLength(2);
    // Without a key, as before: every request mints.
    for (let sent = 0; sent < 2; sent += 1) expect((await mint(body)).status).toBe(201);
    expect(await batchesLabelled(body.label)).toHaveLength(4);
  });

  it('mints one batch when the retry arrives while the first is still minting', async () => {
    const body = { count: 10_000, label: `Raced ${randomUUID()}` };
    const key = `mint-${randomUUID()}`;
    const answers = await Promise.all([mint(body, admin.token, key), mint(body, admin.token, key)]);
    expect(answers.map((answer) => answer.status)).toEqual([201, 201]);
    const [one, two] = (await Promise.all(answers.map((answer) => answer.json()))) as TagBatch[];
    expect(two).toEqual(one);
    expect(await batchesLabelled(body.label)).toEqual([one.id]);
    expect(await tagsOf([one.id])).toBe(10_000);
  });

  it('refuses a malformed Idempotency-Key on minting with the contract error, minting nothing', async () => {
    const label = `Malformed key ${randomUUID()}`;
    for (const key of ['', 'has spaces', 'k'.repeat(129)]) {
      const response = await mint({ count: 5, label }, admin.token, key);
      expect({ key, status: response.status, body: await response.json() }).toEqual({
        key,
        status: 400,
        body: { response_code: 'MALFORMED_REQUEST', message: expect.stringContaining('Idempotency-Key') },
      });
    }
    expect(await batchesLabelled(label)).toEqual([]);
  });

  it('lets only admins mint, and refuses bad batches', async () => {
    const before = await stack.db.query(`SELECT count(*)::int AS n FROM ${items()}`);
    const notAdmin = await mint({ count: 5, label: 'Mine' }, testAccessToken().token);
    expect(notAdmin.status).toBe(403);
    expect(((await notAdmin.json()) as HttpErrorBody).response_code).toBe('FORBIDDEN');
    // Refused before its body is read: a non-admin learns nothing of what the route accepts.
    const notAdminBadBatch = await mint({ count: 0, label: ' ' }, testAccessToken().token);
    const refused = (await notAdminBadBatch.json()) as HttpErrorBody;
    expect({ status: notAdminBadBatch.status, code: refused.response_code, validation: refused.validation }).toEqual({ status: 403, code: 'FORBIDDEN', validation: undefined });
    expect((await fetch(`${api}/admin/tag-batches`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);
    const cases: Array<[unknown, number, Record<string, string> | undefined]> = [
      [{ count: 0, label: 'x' }, 422, { count: 'min=1' }],
      [{ count: 10_001, label: 'x' }, 422, { count: 'max=10000' }],
      [{ count: 2.5, label: 'x' }, 422, { count: 'invalid' }],
      [{ count: 5, label: ' ' }, 422, { label: 'required' }],
      [{ count: 5 }, 422, { label: 'required' }],
      [{ count: 5, label: 'x', owner: 'me' }, 400, undefined],
    ];
    for (const [body, status, validation] of cases) {
      const response = await mint(body);
      expect({ body, status: response.status, validation: ((await response.json()) as HttpErrorBody).validation }).toEqual({ body, status, validation });
    }
    const after = await stack.db.query(`SELECT count(*)::int AS n FROM ${items()}`);
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('prints a batch on A4 pages: every QR code opens its tag’s finder page and its code is printed under it', async () => {
    const batch = (await (await mint({ count: 30, label: 'Print run <1>' })).json()) as TagBatch;
    const { rows } = await stack.db.query(`SELECT code FROM ${items()} WHERE batch_id = $1 ORDER BY code`, [batch.id]);
    const formatted = rows.map((row: { code: string }) => row.code.match(/.{4}/g)!.join('-'));

    const first = await sheet(batch.id);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(first.headers.get('x-sheet-pages')).toBe('2');
    const page1 = await first.text();
    expect(page1).toMatch(/width="210mm" height="297mm"/);
    expect(page1).toContain('Print run &#60;1&#62; · page 1 of 2');
    const second = await (await sheet(batch.id, '?page=2')).text();
    const read = [readSheet(page1), readSheet(second)];
    expect(read.flatMap((page) => page.printed)).toEqual(formatted);
    expect(read.flatMap((page) => page.urls)).toEqual(formatted.map((code: string) => `${PUBLIC_URL}/found/${code}`));
  });

  it('shows sheets to admins only, and 404 for unknown batches and pages', async () => {
    const batch = (await (await mint({ count: 3, label: 'Small' })).json()) as TagBatch;
    expect((await sheet(batch.id, '', testAccessToken().token)).status).toBe(403);
    expect((await sheet(batch.id, '?page=abc', testAccessToken().token)).status).toBe(403);
    expect((await sheet(batch.id, '?page=2')).status).toBe(404);
    expect((await sheet(batch.id, '?page=0')).status).toBe(422);
    expect((await sheet('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await sheet('not-a-batch')).status).toBe(404);
  });

  it('prints the same sheet from the command line for operators', async () => {
    const batch = (await (await mint({ count: 25, label: 'From the CLI' })).json()) as TagBatch;
    const out = await mkdtemp(join(tmpdir(), 'homing-sheet-'));
    try {
      const files = (await runServiceCommand('items', ['print-sheet', '--batch', batch.id, '--out', out], stack.envOf('items'))).trim().split('\n');
      expect(files).toEqual([1, 2].map((page) => join(out, `tag-batch-${batch.id}-page-00${page}.svg`)));
      const fromCli = await readFile(files[0], 'utf8');
      expect(fromCli).toBe(await (await sheet(batch.id)).text());
      expect(readSheet(await readFile(files[1], 'utf8')).urls).toHaveLength(1);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
