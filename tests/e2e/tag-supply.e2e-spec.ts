import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TagBatch, TagBatchList, TagBatchSummary } from '@homing/contracts';
import { runServiceCommand } from '@homing/testing';
import { decodeQrPng } from '../support/qr-decode';
import { startStack, type Stack } from '../support/stack';

const run = promisify(execFile);

// The first tag of a sheet page, in millimetres (apps/gateway/src/admin/tag-sheet-pdf.ts: 10 mm margins, an 8 mm header,
// 4 × 6 cells), cropped out when the page is rendered: jsQR reads one code at a time.
const FIRST_CELL_MM = { x: 10, y: 18, width: 47.5, height: 44.8 };
const DPI = 150;
const px = (mm: number) => Math.round((mm / 25.4) * DPI);

/** Pages of a PDF (pdfinfo), its first page's text (pdftotext), and the first tag's QR code there (pdftoppm, then jsQR). */
async function readPdf(pdf: Buffer): Promise<{ pages: number; firstPageText: string; firstQr: string | null }> {
  const directory = await mkdtemp(join(tmpdir(), 'homing-sheet-'));
  try {
    const file = join(directory, 'sheet.pdf');
    await writeFile(file, pdf);
    const { stdout } = await run('pdfinfo', [file]);
    const pages = Number(/^Pages:\s+(\d+)/m.exec(stdout)?.[1]);
    const cell = ['-x', px(FIRST_CELL_MM.x), '-y', px(FIRST_CELL_MM.y), '-W', px(FIRST_CELL_MM.width), '-H', px(FIRST_CELL_MM.height)].map(String);
    await run('pdftoppm', ['-png', '-r', String(DPI), '-f', '1', '-l', '1', '-singlefile', ...cell, file, join(directory, 'first')]);
    const { stdout: firstPageText } = await run('pdftotext', ['-f', '1', '-l', '1', file, '-']);
    return { pages, firstPageText, firstQr: decodeQrPng(await readFile(join(directory, 'first.png'))) };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

// Operators run the tag supply: an admin made by command mints a batch, sees it and its activations, and prints it
// as one PDF or hands a vendor the CSV; nobody else reaches any of it.
describe('the tag supply', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' } } });
  });

  afterAll(() => stack?.stop());

  const call = async (method: string, path: string, token?: string, body?: unknown) => {
    const headers: Record<string, string> = { 'x-forwarded-for': `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` };
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return fetch(`${stack.api}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  };

  /** A user with a password, as activation creates one and the e-mailed link sets its password. */
  async function newUser(): Promise<{ email: string; password: string }> {
    const email = `operator-${randomUUID()}@example.test`;
    const password = `pw-${randomUUID()}`;
    const reply = await stack.nc.request(`${stack.namespace}.identity.rpc.ensure-user`, JSON.stringify({ email, language: 'en' }), { timeout: 5000 });
    const { passwordToken } = reply.json<{ passwordToken: string }>();
    expect((await call('POST', '/user/password', undefined, { token: passwordToken, password })).status).toBe(200);
    return { email, password };
  }

  const logIn = async (user: { email: string; password: string }) => {
    const response = await call('POST', '/user/login', undefined, user);
    expect(response.status).toBe(200);
    return ((await response.json()) as { token: string }).token;
  };

  const identityCommand = (command: string, email: string) => runServiceCommand('identity', [command, '--email', email], stack.envOf('identity'));

  it('makes an admin by command, who mints, sees activations, and prints the batch as a PDF and a CSV; revoke-admin takes it away at once', async () => {
    const operator = await newUser();
    const before = await logIn(operator);
    expect((await call('GET', '/admin/tag-batches', before)).status).toBe(403);

    const granted = await identityCommand('grant-admin', operator.email);
    expect(granted).not.toContain(operator.email);
    // From the next token on.
    const admin = await logIn(operator);

    const minted = await call('POST', '/admin/tag-batches', admin, { count: 10, label: 'Keyrings, November' });
    expect(minted.status).toBe(201);
    const batch = (await minted.json()) as TagBatch;

    const listed = (await (await call('GET', '/admin/tag-batches', admin)).json()) as TagBatchList;
    expect(listed.batches[0]).toEqual({ ...batch, claimed: 0, created_by: operator.email });

    const csvResponse = await call('GET', `/admin/tag-batches/${batch.id}/codes.csv`, admin);
    expect(csvResponse.status).toBe(200);
    expect(csvResponse.headers.get('content-type')).toMatch(/^text\/csv/);
    const [header, ...rows] = (await csvResponse.text()).trim().split(/\r?\n/);
    expect(header).toBe('code,finder_url,qr_url');
    expect(rows).toHaveLength(10);
    const parsed = rows.map((row) => row.split(','));
    const publicUrl = `http://localhost:${stack.services.get('gateway')!.port}`;
    for (const [code, finderUrl, qrUrl] of parsed) {
      expect(code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
      expect(finderUrl).toBe(`${publicUrl}/found/${code}`);
      expect(qrUrl).toBe(`${publicUrl}/qr/${code}`);
    }

    const pdfResponse = await call('GET', `/admin/tag-batches/${batch.id}/sheet.pdf`, admin);
    expect(pdfResponse.status).toBe(200);
    expect(pdfResponse.headers.get('content-type')).toBe('application/pdf');
    const pdf = await readPdf(Buffer.from(await pdfResponse.arrayBuffer()));
    expect(pdf.pages).toBe(batch.pages);
    expect(parsed.map(([, finderUrl]) => finderUrl)).toContain(pdf.firstQr);
    // Each tag's e-mail relay address is printed under its code, for finders without a smartphone.
    const [firstOnSheet] = parsed.filter(([, finderUrl]) => finderUrl === pdf.firstQr).map(([code]) => code);
    expect(pdf.firstPageText).toContain(`tag-${firstOnSheet.replace(/-/g, '').toLowerCase()}@relay.localhost`);

    // One of its tags activated: the list and the batch say so.
    const [firstCode] = parsed[0];
    expect((await call('POST', '/claim', undefined, { code: firstCode, email: `owner-${randomUUID()}@example.test` })).status).toBe(200);
    const one = (await (await call('GET', `/admin/tag-batches/${batch.id}`, admin)).json()) as TagBatchSummary;
    expect(one.claimed).toBe(1);
    expect(((await (await call('GET', '/admin/tag-batches', admin)).json()) as TagBatchList).batches[0].claimed).toBe(1);

    // Anyone else: 403 on every admin route, 401 without a token.
    const stranger = await logIn(await newUser());
    const adminRoutes: Array<[string, string, unknown?]> = [
      ['GET', '/admin/tag-batches'],
      ['GET', `/admin/tag-batches/${batch.id}`],
      ['GET', `/admin/tag-batches/${batch.id}/sheet.pdf`],
      ['GET', `/admin/tag-batches/${batch.id}/codes.csv`],
      ['GET', `/admin/tag-batches/${batch.id}/sheet?page=1`],
      ['POST', '/admin/tag-batches', { count: 1, label: 'Mine' }],
    ];
    for (const [method, path, body] of adminRoutes) {
      expect({ path, status: (await call(method, path, stranger, body)).status }).toEqual({ path, status: 403 });
      expect({ path, status: (await call(method, path, undefined, body)).status }).toEqual({ path, status: 401 });
    }

    await identityCommand('revoke-admin', operator.email);
    // At once: the token issued while an admin still says `is_admin`, and is refused all the same.
    expect((await call('GET', '/admin/tag-batches', admin)).status).toBe(403);
    expect((await call('POST', '/admin/tag-batches', admin, { count: 1, label: 'After the revocation' })).status).toBe(403);
    const revoked = await logIn(operator);
    expect((await call('GET', '/admin/tag-batches', revoked)).status).toBe(403);
  });

  it('keeps a batch as minted when an owner deletes one of its tags: its activation counted, its code in the CSV and on the sheets, its label legible', async () => {
    const operator = await newUser();
    await identityCommand('grant-admin', operator.email);
    const admin = await logIn(operator);
    // A label in any script: the PDF draws it in a Unicode font (PDF's own know WinAnsi only, and garbled the line).
    const label = 'Łódź Ωμέγα Брест, kept';
    const batch = (await (await call('POST', '/admin/tag-batches', admin, { count: 25, label })).json()) as TagBatch;
    expect(batch.pages).toBe(2);
    const codes = async () => ((await (await call('GET', `/admin/tag-batches/${batch.id}/codes.csv`, admin)).text()).trim().split(/\r?\n/).slice(1).map((row) => row.split(',')[0]));
    const minted = await codes();
    const firstPage = await (await call('GET', `/admin/tag-batches/${batch.id}/sheet?page=1`, admin)).text();

    // The first tag is activated, then its owner deletes the item.
    const claimed = await call('POST', '/claim', undefined, { code: minted[0], email: `owner-${randomUUID()}@example.test` });
    expect(claimed.status).toBe(200);
    const { login_token: owner } = (await claimed.json()) as { login_token: string };
    expect((await call('DELETE', `/user/items/${minted[0]}`, owner)).status).toBe(204);

    const summary = (await (await call('GET', `/admin/tag-batches/${batch.id}`, admin)).json()) as TagBatchSummary;
    expect({ claimed: summary.claimed, count: summary.count }).toEqual({ claimed: 1, count: 25 });
    expect(await codes()).toEqual(minted);
    expect(await (await call('GET', `/admin/tag-batches/${batch.id}/sheet?page=1`, admin)).text()).toBe(firstPage);
    const { pages, firstPageText } = await readPdf(Buffer.from(await (await call('GET', `/admin/tag-batches/${batch.id}/sheet.pdf`, admin)).arrayBuffer()));
    expect({ pages, header: firstPageText.split('\n')[0] }).toEqual({ pages: 2, header: `${label} · page 1 of 2` });
  });

  it('refuses an unknown address on the command line without naming it', async () => {
    const email = `nobody-${randomUUID()}@example.test`;
    const failed = await identityCommand('grant-admin', email).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failed).not.toBeNull();
    // What the command itself printed, after the test helper's own account of the call.
    const printed = failed!.slice(failed!.indexOf('exited'));
    expect(printed).toMatch(/no user has the address/);
    expect(printed).not.toContain(email);
  });

  it('draws at most two PDF sheets at once: another download meanwhile is refused with the contract’s 503 and Retry-After', async () => {
    const operator = await newUser();
    await identityCommand('grant-admin', operator.email);
    const admin = await logIn(operator);
    // Large enough that an unread download stays in flight: its render waits for the reader (the stream's back-pressure).
    const batch = (await (await call('POST', '/admin/tag-batches', admin, { count: 10_000, label: 'Drawn two at a time' })).json()) as TagBatch;
    const download = () => call('GET', `/admin/tag-batches/${batch.id}/sheet.pdf`, admin);

    // Two downloads started and left unread hold the gateway's two renders (apps/gateway/src/admin: PDF_RENDERS_AT_ONCE).
    const held = [await download(), await download()];
    expect(held.map((response) => response.status)).toEqual([200, 200]);
    // Any more meanwhile, sent together, are refused at once without drawing anything.
    const refused = await Promise.all([download(), download(), download()]);
    for (const response of refused) {
      expect({ status: response.status, retryAfter: Number(response.headers.get('retry-after')) > 0, body: await response.json() }).toEqual({
        status: 503,
        retryAfter: true,
        body: { response_code: 'SERVICE_BUSY', message: expect.any(String) },
      });
    }
    // The held ones complete as whole PDFs.
    for (const response of held) expect((await readPdf(Buffer.from(await response.arrayBuffer()))).pages).toBe(batch.pages);
    // Their renders over, the next download is drawn.
    const after = await download();
    expect(after.status).toBe(200);
    expect((await readPdf(Buffer.from(await after.arrayBuffer()))).pages).toBe(batch.pages);
  });

  it('streams the PDF and the CSV of a 10,000-tag batch whole', async () => {
    const { token: admin } = await (async () => {
      const operator = await newUser();
      await identityCommand('grant-admin', operator.email);
      return { token: await logIn(operator) };
    })();
    const batch = (await (await call('POST', '/admin/tag-batches', admin, { count: 10_000, label: 'Stickers, bulk' })).json()) as TagBatch;

    const csvStarted = performance.now();
    const csv = await call('GET', `/admin/tag-batches/${batch.id}/codes.csv`, admin);
    const csvFirstByteMs = performance.now() - csvStarted;
    const csvRows = (await csv.text()).trim().split(/\r?\n/).length - 1;
    const csvMs = performance.now() - csvStarted;

    const pdfStarted = performance.now();
    const pdfResponse = await call('GET', `/admin/tag-batches/${batch.id}/sheet.pdf`, admin);
    const pdfFirstByteMs = performance.now() - pdfStarted;
    const pdfBytes = Buffer.from(await pdfResponse.arrayBuffer());
    const pdfMs = performance.now() - pdfStarted;

    expect(csvRows).toBe(10_000);
    const { pages } = await readPdf(pdfBytes);
    expect(pages).toBe(batch.pages);
    console.log(
      `10,000 tags: CSV first byte ${csvFirstByteMs.toFixed(0)} ms, whole ${csvMs.toFixed(0)} ms; ` +
        `PDF (${pages} pages, ${(pdfBytes.length / 1e6).toFixed(1)} MB) first byte ${pdfFirstByteMs.toFixed(0)} ms, whole ${pdfMs.toFixed(0)} ms`,
    );
  });
});
