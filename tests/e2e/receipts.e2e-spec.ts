import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import type { CreateMessageResponse, Message, PublicItem } from '@homing/contracts';
import { expectEventually } from '@homing/testing';
import { testAccessToken } from '../support/access-tokens';
import { apiCall, type ApiCaller } from '../support/api';
import { startStack, type Stack } from '../support/stack';

// Receipts and the owner's delayed e-mail through the whole stack: a finder's message is "delivered" once
// notifications told the owner (push or e-mail) and "read" once the owner opened the thread; an owner's reply is "read"
// once the finder opened theirs. An owner with push is e-mailed only if the message is still unread after the delay.
describe('receipts and the owner’s delayed e-mail', () => {
  const DELAY_MINUTES = 0.25;
  const DELAY_MS = DELAY_MINUTES * 60_000;
  const SUBJECT = 'Someone wrote about your lost item';
  let stack: Stack;
  let redis: IORedis;
  let emailQueue: Queue;

  beforeAll(async () => {
    stack = await startStack({ env: { notifications: { OWNER_EMAIL_DELAY_MINUTES: String(DELAY_MINUTES) } } });
    redis = new IORedis(stack.shared.REDIS_URL ?? '', { maxRetriesPerRequest: null });
    emailQueue = new Queue('email', { connection: redis, prefix: `homing_${stack.namespace}` });
  });

  afterAll(async () => {
    await emailQueue?.close();
    redis?.disconnect();
    await stack?.stop();
  });

  const call = <T = unknown>(method: string, path: string, options: ApiCaller = {}) => apiCall<T>(stack, method, path, options);

  /** An owner identity knows (so e-mails reach them), logged in, with an item messaging has heard of. */
  async function ownerWithItem() {
    const email = `owner-${randomUUID()}@example.test`;
    const reply = await stack.nc.request(`${stack.namespace}.identity.rpc.ensure-user`, JSON.stringify({ email, language: 'en' }), { timeout: 5000 });
    const { userId } = reply.json<{ userId: string }>();
    const { token } = testAccessToken({ id: userId, email });
    const created = await call<PublicItem>('POST', '/items', { token, body: { name: 'Keys' } });
    expect(created.status).toBe(201);
    const code = created.body.code;
    await expectEventually(async () => expect((await call('GET', `/user/items/${code}/unread-count`, { token })).status).toBe(200));
    return { email, userId, token, code };
  }

  async function subscribe(token: string) {
    const browser = stack.push.subscribe();
    expect((await call('POST', '/user/push/register', { token, body: browser })).status).toBe(204);
    return browser;
  }

  async function finderWrites(code: string, content: string, finderToken?: string) {
    const written = await call<CreateMessageResponse>('POST', `/items/${code}/messages`, { finderToken, body: { content } });
    expect(written.status).toBe(201);
    return { message: written.body.message, finderToken: finderToken ?? (written.body.finder_token as string) };
  }

  const messages = async (code: string, caller: ApiCaller, after?: number) => {
    const answer = await call<Message[]>('GET', `/items/${code}/messages${after === undefined ? '' : `?after=${after}`}`, caller);
    expect(answer.status).toBe(200);
    return answer.body;
  };
  const newMessageMails = (email: string) => stack.mail.mailsTo(email).filter((mail) => mail.subject === SUBJECT);
  // Owners made by ensure-user also get a welcome e-mail: only the new-message one counts here.
  const newMessageMail = (email: string, timeoutMs: number) =>
    expectEventually(
      () => {
        const [mail] = newMessageMails(email);
        if (!mail) throw new Error('no new-message e-mail yet');
        return mail;
      },
      { timeoutMs },
    );
  const deliveryOf = async (jobId: string) =>
    (await stack.db.query(`SELECT status FROM "${stack.schemaOf('notifications')}".deliveries WHERE job_id = $1`, [jobId])).rows[0]?.status as string | undefined;
  /** The owner's new-message e-mail job for this owner, and how long it was to wait. */
  const ownerMailJob = async (userId: string) => {
    const jobs = await emailQueue.getJobs(['completed', 'waiting', 'active', 'delayed', 'failed']);
    return jobs.find((job) => job.name === 'new-message' && (job.data as { userId?: string }).userId === userId);
  };

  it('shows the finder "delivered" once the owner was pushed and "read" once the owner opened the thread, and tells an open poll', async () => {
    const owner = await ownerWithItem();
    await subscribe(owner.token);
    const { message, finderToken } = await finderWrites(owner.code, 'Found your keys');
    expect(message).toMatchObject({ delivered_at: null, read_at: null, version: message.id });

    const delivered = await expectEventually(async () => {
      const [seen] = await messages(owner.code, { finderToken });
      expect(seen.delivered_at).not.toBeNull();
      return seen;
    });
    expect(delivered.read_at).toBeNull();
    expect(delivered.version).toBeGreaterThan(message.id);

    // An open thread's poll with nothing new is empty; once the owner reads, the same poll brings the message again.
    expect(await messages(owner.code, { finderToken }, delivered.version)).toEqual([]);
    const ownerView = await messages(owner.code, { token: owner.token });
    expect(ownerView.map((seen) => seen.id)).toEqual([message.id]);
    const read = await expectEventually(async () => {
      const [seen] = await messages(owner.code, { finderToken }, delivered.version);
      // An empty poll (the receipt not there yet) is no answer: `undefined` would pass `not.toBeNull()`.
      expect(seen?.read_at ?? null).not.toBeNull();
      return seen;
    });
    expect(read).toMatchObject({ id: message.id, is_read: true });
    expect(read.version).toBeGreaterThan(delivered.version);
    expect(await messages(owner.code, { finderToken }, read.version)).toEqual([]);
  });

  it('shows the owner "read" on a reply once the finder opened their conversation', async () => {
    const owner = await ownerWithItem();
    const { finderToken } = await finderWrites(owner.code, 'Found your keys');
    await messages(owner.code, { token: owner.token });
    const reply = await call<CreateMessageResponse>('POST', `/items/${owner.code}/messages`, { token: owner.token, body: { content: 'Thank you!' } });
    expect(reply.status).toBe(201);
    const replyId = reply.body.message.id;
    const before = (await messages(owner.code, { token: owner.token })).find((seen) => seen.id === replyId);
    expect(before?.read_at).toBeNull();
    const watermark = Math.max(...(await messages(owner.code, { token: owner.token })).map((seen) => seen.version));

    const finderView = await messages(owner.code, { finderToken });
    expect(finderView.find((seen) => seen.id === replyId)?.read_at).toBeNull();
    const read = await expectEventually(async () => {
      const seen = (await messages(owner.code, { token: owner.token }, watermark)).find((candidate) => candidate.id === replyId);
      expect(seen?.read_at ?? null).not.toBeNull();
      return seen;
    });
    expect(read?.author).toBe('owner');
  });

  it('e-mails an owner with push only for a message still unread after the delay', async () => {
    const reader = await ownerWithItem();
    const readerBrowser = await subscribe(reader.token);
    const idle = await ownerWithItem();
    const idleBrowser = await subscribe(idle.token);

    const readSoon = await finderWrites(reader.code, 'Found your keys');
    const leftUnread = await finderWrites(idle.code, 'Found your bag');
    await stack.push.waitForPushes(readerBrowser);
    await stack.push.waitForPushes(idleBrowser);
    // Pushed at once; the e-mails wait. Another consumer of the same event queues the mail, so its job can appear after
    // the push has arrived (seen in CI on a slow machine).
    for (const owner of [reader, idle]) await expectEventually(async () => expect((await ownerMailJob(owner.userId))?.opts.delay).toBe(DELAY_MS));
    expect(newMessageMails(idle.email)).toHaveLength(0);
    await messages(reader.code, { token: reader.token });

    await newMessageMail(idle.email, DELAY_MS + 20_000);
    const readJob = await ownerMailJob(reader.userId);
    await expectEventually(async () => expect(await readJob?.getState()).toBe('completed'), { timeoutMs: 20_000 });
    expect(await deliveryOf(readJob?.id ?? '')).toBe('skipped');
    expect(newMessageMails(reader.email)).toHaveLength(0);
    expect(await deliveryOf((await ownerMailJob(idle.userId))?.id ?? '')).toBe('sent');
    // The unread message stays unread, delivered (by push, then by e-mail).
    const [seen] = await messages(idle.code, { finderToken: leftUnread.finderToken });
    expect(seen).toMatchObject({ read_at: null });
    expect(seen.delivered_at).not.toBeNull();
    expect(readSoon.message.id).toBeGreaterThan(0);
  });

  it('e-mails an owner without push at once, and marks the message delivered by it', async () => {
    const owner = await ownerWithItem();
    const written = Date.now();
    const { finderToken } = await finderWrites(owner.code, 'Found your keys');
    await newMessageMail(owner.email, DELAY_MS);
    expect(Date.now() - written).toBeLessThan(DELAY_MS);
    expect((await ownerMailJob(owner.userId))?.opts.delay ?? 0).toBe(0);
    await expectEventually(async () => expect((await messages(owner.code, { finderToken }))[0].delivered_at).not.toBeNull());
  });
});
