import { randomUUID } from 'node:crypto';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Queue, QueueEvents } from 'bullmq';
import { Client } from 'pg';
import { STREAMS } from '@homing/contracts';
import { RPC_TIMEOUT_MS } from '@homing/platform';
import { expectEventually, PushSink } from '@homing/testing';
import { testAccessToken } from '../support/access-tokens';
import { reportFigure, sized } from './harness/figures';
import { FaultStack } from './harness/fault-stack';
import { mailCounts, percentile } from './harness/measures';
import { privateInfraAvailable } from './harness/private-infra';
import { call, eventsIn, ownedTags, type RetryFigures } from './harness/product-client';

// F3, F10–F14 (../shared/RELIABILITY.md) on one private stack: the outbox relay republishing what it had published,
// a service that stops answering, notification workers killed and stopped mid-job, an SMTP server and a push service
// that refuse, and notifications replaying its whole stream with poison events in it.
const describeWithInfra = privateInfraAvailable() ? describe : describe.skip;

const sleep = (ms: number) => new Promise((resolveWait) => setTimeout(resolveWait, ms));
// The workers' lock (JOB_LOCK_SECONDS) and a run's claim on its delivery (DELIVERY_CLAIM_SECONDS, which a killed run's
// job waits out) are short here so that F11 waits seconds, not minutes, for a killed worker's jobs: what it shows
// (nothing lost or sent twice, nothing stalled by a SIGTERM) does not depend on the lengths.
const JOB_LOCK_SECONDS = 5;
const DELIVERY_CLAIM_SECONDS = 5;

describeWithInfra('F3, F10–F14: relays, partitions, workers and replays', () => {
  let stack: FaultStack;
  let push: PushSink;
  let db: Client;
  let nc: NatsConnection;
  // Every job-stalled event of the e-mail queue, as BullMQ reports it (a stall means a worker lost a job it held).
  let queueEvents: QueueEvents;
  let emailQueue: Queue;
  const stalled: string[] = [];

  beforeAll(async () => {
    push = await new PushSink().start();
    stack = await FaultStack.start({
      // Owners here have push subscriptions: their e-mails go at once (no OWNER_EMAIL_DELAY_MINUTES wait), as measured.
      env: { notifications: { NOTIFICATIONS_ROLE: 'all', PUSH_SERVICE_HOSTS: push.host, NODE_EXTRA_CA_CERTS: push.caPath, OWNER_EMAIL_DELAY_MINUTES: '0', JOB_LOCK_SECONDS: String(JOB_LOCK_SECONDS), DELIVERY_CLAIM_SECONDS: String(DELIVERY_CLAIM_SECONDS) } },
    });
    db = new Client({ connectionString: stack.postgres.url });
    await db.connect();
    nc = await connect({ servers: stack.nats.url });
    const connection = { url: stack.redis.url };
    queueEvents = new QueueEvents('email', { connection, prefix: 'homing' });
    queueEvents.on('stalled', ({ jobId }) => stalled.push(jobId));
    await queueEvents.waitUntilReady();
    emailQueue = new Queue('email', { connection, prefix: 'homing' });
  });

  afterAll(async () => {
    await queueEvents?.close();
    await emailQueue?.close();
    await nc?.close();
    await db?.end();
    await stack?.stop();
    await push?.stop();
  });

  const figures: RetryFigures = { statuses: new Map() };

  it('F3: republishes outbox rows whose mark was lost, and the stream keeps one copy of each', async () => {
    const owners = await ownedTags(stack, 3, figures);
    await mailCounts(stack, owners, 2);
    const subject = 'items.item.claimed.v1';
    const before = await eventsIn(stack.nats.url, subject);
    // A relay that died after JetStream's ack and before marking its rows leaves exactly this: published rows unmarked.
    const { rows } = await db.query<{ id: string }>(
      `UPDATE items.outbox SET published_at = NULL WHERE subject = $1 AND published_at IS NOT NULL RETURNING id`,
      [subject],
    );
    expect(rows.length).toBeGreaterThanOrEqual(3);
    await expectEventually(async () => {
      const { rows: unmarked } = await db.query('SELECT 1 FROM items.outbox WHERE published_at IS NULL');
      expect(unmarked).toHaveLength(0);
    });
    const after = await eventsIn(stack.nats.url, subject);
    const duplicates = after.length - new Set(after.map((event) => event.id)).size;
    const { duplicated } = await mailCounts(stack, owners, 2);
    reportFigure({
      id: 'F3',
      test: 'outbox rows published but not marked (a relay killed between the ack and the mark) are relayed again',
      figure: `republished ${rows.length}; duplicates stored ${duplicates + (after.length - before.length)}; e-mails sent twice ${duplicated}`,
      size: `${rows.length} rows`,
      passed: duplicates === 0 && after.length === before.length && duplicated === 0,
    });
    expect({ stored: after.length, duplicates, duplicated }).toEqual({ stored: before.length, duplicates: 0, duplicated: 0 });
  });

  it('F10: a service that stops answering gets 503/504 from the gateway within the RPC timeout, and no hanging request', async () => {
    const { token } = testAccessToken();
    // The bound is a p99: of fewer than 100 answers that is their maximum, a single hiccup of a loaded machine.
    const requests = sized(100, 200);
    const list = async () => {
      const started = performance.now();
      const answer = await call<unknown>(stack, 'GET', '/user/items', undefined, { authorization: `Bearer ${token}` });
      return { status: answer.status, ms: performance.now() - started };
    };
    // As many connections as the callers below use, opened before the fault: the bound is on the gateway's answer,
    // and a TCP handshake per caller would count the test client's set-up against it.
    const warm = await Promise.all(Array.from({ length: 10 }, list));
    expect(warm.map(({ status }) => status)).toEqual(Array(10).fill(200));
    stack.service('items').pause();
    let answers: Array<{ status: number; ms: number }>;
    try {
      // Ten callers, each sending its next request when the last is answered, so ten are always waiting. Their
      // starts are spread over one timeout (200 ms apart): requests sent in the same millisecond time out in the
      // same millisecond and are answered one after another, so a wave would be judged by its last answer and a
      // p99 of 100 answers by ten waves, not by 100 answers.
      const caller = async (index: number) => {
        await sleep((index * RPC_TIMEOUT_MS) / 10);
        const own: Array<{ status: number; ms: number }> = [];
        for (let sent = 0; sent < requests / 10; sent += 1) own.push(await list());
        return own;
      };
      answers = (await Promise.all(Array.from({ length: 10 }, (_, index) => caller(index)))).flat();
    } finally {
      stack.service('items').resume();
    }
    const p99 = percentile(answers.map(({ ms }) => ms), 99);
    const statuses = [...new Set(answers.map(({ status }) => status))].sort();
    await expectEventually(async () => expect((await list()).status).toBe(200));
    reportFigure({
      id: 'F10',
      test: 'items SIGSTOPped: the owner’s item list through the gateway',
      figure: `answers ${statuses.join('/')}; p99 ${Math.round(p99)} ms (RPC timeout ${RPC_TIMEOUT_MS} ms); hanging 0`,
      size: `${answers.length} requests`,
      passed: statuses.every((status) => status === 503 || status === 504) && p99 <= RPC_TIMEOUT_MS + 100,
    });
    expect(statuses.every((status) => status === 503 || status === 504)).toBe(true);
    expect(p99).toBeLessThanOrEqual(RPC_TIMEOUT_MS + 100);
  });

  it('F11: jobs of a worker SIGKILLed mid-send run again after the stall window; a SIGTERM lets jobs in hand finish', async () => {
    const failedBefore = await emailQueue.getJobCountByTypes('failed');
    // Twice: the SMTP server holds the next sends, so the worker dies with jobs active.
    const killedOwners: Array<{ email: string }> = [];
    for (let kill = 0; kill < 2; kill += 1) {
      stack.mail.holdNext(2);
      killedOwners.push(...(await ownedTags(stack, 1, figures)));
      await expectEventually(() => expect(stack.mail.heldCount).toBeGreaterThan(0), { timeoutMs: 30_000 });
      await stack.service('notifications').kill('SIGKILL');
      // An SMTP server answers a DATA whose client hung up with nothing: give the sink time to see the hang-up, so
      // what follows measures the product, not a server that accepts mail from a dead connection.
      await sleep(1000);
      stack.mail.releaseAll();
      await stack.waitReady('notifications');
    }
    const killed = await mailCounts(stack, killedOwners, 2, 150_000);
    const stalledByKills = stalled.length;

    // SIGTERM with both e-mails of an activation in hand: the worker finishes them before it exits.
    stack.mail.holdNext(2);
    const drainedOwners = await ownedTags(stack, 1, figures);
    await expectEventually(() => expect(stack.mail.heldCount).toBe(2), { timeoutMs: 30_000 });
    const terminated = stack.service('notifications').kill('SIGTERM');
    await sleep(1000);
    stack.mail.releaseAll();
    await terminated;
    await stack.waitReady('notifications');
    const drained = await mailCounts(stack, drainedOwners, 2);
    // A job left active by the SIGTERM would be found stalled within two stall intervals.
    await sleep(2 * JOB_LOCK_SECONDS * 1000 + 2000);
    const stalledOnTerm = stalled.length - stalledByKills;
    const failedByStall = (await emailQueue.getJobCountByTypes('failed')) - failedBefore;
    reportFigure({
      id: 'F11',
      test: 'notifications SIGKILLed mid-send twice, then SIGTERMed with two sends in hand',
      figure: `jobs failed by stall ${failedByStall}; recovered from stall ${stalledByKills}; stalled on SIGTERM ${stalledOnTerm}; e-mails lost ${killed.lost + drained.lost}, duplicated ${killed.duplicated + drained.duplicated}`,
      size: '2 kills, 1 SIGTERM',
      passed: failedByStall === 0 && stalledOnTerm === 0 && killed.lost + drained.lost === 0 && killed.duplicated + drained.duplicated === 0,
    });
    expect({ failedByStall, stalledOnTerm, lost: killed.lost + drained.lost, duplicated: killed.duplicated + drained.duplicated }).toEqual({
      failedByStall: 0,
      stalledOnTerm: 0,
      lost: 0,
      duplicated: 0,
    });
  });

  it('F12: an SMTP server answering 4xx is retried until it accepts; a 550 fails the send for good', async () => {
    const temporaryRefusals = 3;
    stack.mail.answerNext(451, temporaryRefusals);
    const [owner] = await ownedTags(stack, 1, figures);
    const delivered = await mailCounts(stack, [owner], 2, 60_000);
    const refusedBefore = stack.mail.refused.length;

    stack.mail.answerNext(550, 2);
    const [refusedOwner] = await ownedTags(stack, 1, figures);
    await expectEventually(() => expect(stack.mail.refused.length - refusedBefore).toBe(2), { timeoutMs: 30_000 });
    // The two e-mails the 550 answered, by their Message-ID (`<jobId@homing>`): sending one again is a retry.
    const refusedWith550 = stack.mail.refused.slice(refusedBefore);
    const refusedIds = new Set(refusedWith550.map(({ messageId }) => messageId));
    // Give a retry, were there one, the first back-off step and more.
    await sleep(5000);
    const sentAgain =
      stack.mail.refused.filter(({ messageId }) => refusedIds.has(messageId)).length -
      refusedWith550.length +
      stack.mail.received.filter(({ messageId }) => refusedIds.has(messageId)).length;
    const failedIds = new Set((await emailQueue.getFailed()).map((job) => `<${job.id}@homing>`));
    const failedFor550 = [...refusedIds].filter((messageId) => failedIds.has(messageId)).length;
    reportFigure({
      id: 'F12',
      test: `SMTP answers 451 ${temporaryRefusals}×, then 550`,
      figure: `delivered after recovery ${delivered.lost === 0 ? 100 : Math.round(((2 - delivered.lost) / 2) * 100)}%; duplicated ${delivered.duplicated}; refused with 550 ${refusedIds.size} of 2 e-mails, sent again after the 550 ${sentAgain}; failed jobs kept ${failedFor550}`,
      size: '2 activations',
      passed:
        delivered.lost === 0 &&
        delivered.duplicated === 0 &&
        refusedWith550.every(({ responseCode }) => responseCode === 550) &&
        refusedIds.size === 2 &&
        sentAgain === 0 &&
        failedFor550 === 2 &&
        stack.mail.mailsTo(refusedOwner.email).length === 0,
    });
    expect(delivered).toEqual({ lost: 0, duplicated: 0, resentAfterKill: 0 });
    expect(refusedWith550.map(({ responseCode }) => responseCode)).toEqual([550, 550]);
    expect(refusedIds.size).toBe(2);
    expect(sentAgain).toBe(0);
    expect(failedFor550).toBe(2);
    expect(stack.mail.mailsTo(refusedOwner.email)).toHaveLength(0);
  });

  it('F13: push answers 201, 404, 410, 429 and 500: gone subscriptions deleted, Retry-After honoured, errors retried', async () => {
    const { token } = testAccessToken();
    const headers = { authorization: `Bearer ${token}` };
    const created = await call<{ code: string }>(stack, 'POST', '/items', { name: 'Bike' }, headers);
    expect(created.status).toBe(201);
    const { code } = created.body;
    const browsers = { ok: push.subscribe(), notFound: push.subscribe(), gone: push.subscribe(), slowDown: push.subscribe(), failing: push.subscribe() };
    for (const browser of Object.values(browsers)) expect((await call(stack, 'POST', '/user/push/register', browser, headers)).status).toBe(204);
    push.answerNext(browsers.notFound, 404);
    push.answerNext(browsers.gone, 410);
    push.answerNext(browsers.slowDown, 429, { headers: { 'retry-after': '2' } });
    push.answerNext(browsers.failing, 500);
    // Messaging learns the owner from items' events: the first message may come before it does.
    await expectEventually(async () => expect((await call(stack, 'GET', `/user/items/${code}/unread-count`, undefined, headers)).status).toBe(200));
    const sentAt = Date.now();
    expect((await call(stack, 'POST', `/items/${code}/messages`, { content: 'Found your bike by the station' })).status).toBe(201);

    const [delivered] = await push.waitForPushes(browsers.ok, 1, 30_000);
    await push.waitForPushes(browsers.slowDown, 1, 60_000);
    const retryAfterMs = Date.now() - sentAt;
    const [afterError] = await push.waitForPushes(browsers.failing, 1, 60_000);
    const endpoints = [browsers.notFound.endpoint, browsers.gone.endpoint];
    await expectEventually(async () => {
      const { rows } = await db.query('SELECT endpoint FROM notifications.push_subscriptions WHERE endpoint = ANY($1)', [endpoints]);
      expect(rows).toHaveLength(0);
    });
    await sleep(3000);
    const extra = Object.values(browsers).reduce((sum, browser) => sum + Math.max(0, push.pushesTo(browser).length - 1), 0);
    reportFigure({
      id: 'F13',
      test: 'push service answers 201, 404, 410, 429 (Retry-After 2 s), 500 to an owner’s five subscriptions',
      figure: `stale subscriptions left 0 of 2; 429 delivered after ${(retryAfterMs / 1000).toFixed(1)} s; 500 delivered on retry; pushes sent twice ${extra}`,
      size: '1 message, 5 subscriptions',
      passed: Boolean(delivered && afterError) && retryAfterMs >= 2000 && extra === 0,
    });
    expect(retryAfterMs).toBeGreaterThanOrEqual(2000);
    expect(extra).toBe(0);
  });

  it('F14: notifications replaying its whole stream sends nothing again, and poison events go to the dead-letter stream', async () => {
    const mailsBefore = stack.mail.received.length;
    const pushesBefore = push.received.length;
    const service = stack.service('notifications');
    await service.stop();

    // Every durable consumer of notifications starts again from the first event of its stream.
    const jsm = await jetstreamManager(nc);
    const replayed: string[] = [];
    for (const stream of [STREAMS.events.name, STREAMS.secrets.name]) {
      for (const info of await jsm.consumers.list(stream).next()) {
        if (!info.name.startsWith('notifications__')) continue;
        await jsm.consumers.delete(stream, info.name);
        await jsm.consumers.add(stream, {
          durable_name: info.name,
          ack_policy: AckPolicy.Explicit,
          ack_wait: info.config.ack_wait,
          max_deliver: info.config.max_deliver,
          filter_subject: info.config.filter_subject,
          deliver_policy: DeliverPolicy.All,
        });
        replayed.push(info.name);
      }
    }
    const inStream = (await jsm.streams.info(STREAMS.events.name)).state.messages;

    // Poison: not JSON, an envelope without its fields, and a claim event whose data is not a claim.
    const js = jetstream(nc);
    const poison = ['not json at all', JSON.stringify({ hello: 'world' }), JSON.stringify({ id: randomUUID(), subject: 'items.item.claimed.v1', occurredAt: new Date().toISOString(), data: { code: 42 } })];
    for (const body of poison) await js.publish('items.item.claimed.v1', body, { msgID: randomUUID() });
    const deadBefore = (await jsm.streams.info(STREAMS.deadLetters.name)).state.last_seq;

    service.start();
    await stack.waitReady('notifications');
    // Replayed when every replayed consumer has nothing pending and nothing unacknowledged.
    await expectEventually(
      async () => {
        for (const stream of [STREAMS.events.name, STREAMS.secrets.name]) {
          for (const info of await jsm.consumers.list(stream).next()) {
            if (replayed.includes(info.name)) expect({ consumer: info.name, pending: info.num_pending + info.num_ack_pending }).toEqual({ consumer: info.name, pending: 0 });
          }
        }
      },
      { timeoutMs: 90_000, intervalMs: 1000 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n--- notifications log tail ---\n${service.logs.slice(-4000)}`);
    });
    await sleep(3000);
    const resentMails = stack.mail.received.length - mailsBefore;
    const resentPushes = push.received.length - pushesBefore;
    // Each dead letter names its consumer and reason: the poison, and nothing else the replay touched.
    const deadLetters: string[] = [];
    for (let seq = deadBefore + 1; seq <= (await jsm.streams.info(STREAMS.deadLetters.name)).state.last_seq; seq += 1) {
      const letter = await jsm.streams.getMessage(STREAMS.deadLetters.name, { seq });
      if (letter) deadLetters.push(`${letter.header.get('Homing-Dead-Letter-Consumer')}: ${letter.header.get('Homing-Dead-Letter-Reason')}`);
    }
    // Messaging's item-owners projection reads the same subject and dead-letters the same poison; the rows that count
    // here are notifications'.
    const deadLettered = deadLetters.filter((letter) => letter.startsWith('notifications__')).length;
    console.log(`dead letters of the replay:\n${deadLetters.join('\n')}`);
    reportFigure({
      id: 'F14',
      test: `notifications' ${replayed.length} consumers replay their streams from the first event, with 3 poison events injected`,
      figure: `resent on replay ${resentMails + resentPushes} (e-mails ${resentMails}, pushes ${resentPushes}); poison events dead-lettered by notifications ${deadLettered} of ${poison.length} (by every consumer ${deadLetters.length}); crashes ${stack.crashes().length}`,
      size: `${inStream} events`,
      passed: resentMails + resentPushes === 0 && deadLettered === poison.length && stack.crashes().length === 0,
    });
    expect({ resentMails, resentPushes }).toEqual({ resentMails: 0, resentPushes: 0 });
    expect(deadLettered).toBe(poison.length);
    expect(stack.crashes()).toEqual([]);
  });
});

