import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { expectEventually } from '@homing/testing';
import { reportFigure, sized } from './harness/figures';
import { FaultStack } from './harness/fault-stack';
import { privateInfraAvailable } from './harness/private-infra';
import { call, eventsIn, ownedTags, untilAcknowledged, type RetryFigures } from './harness/product-client';

// F1 and F4 (../shared/RELIABILITY.md): finders' messages keep arriving while messaging is SIGKILLed again and
// again, or while NATS is killed and then frozen. Every message a finder saw acknowledged must exist exactly once,
// with exactly one `messaging.message.created.v1` event; retries (same Idempotency-Key) must create nothing new.
// The per-tag spam limit (200 an hour) spreads the messages over several tags.
const PER_TAG = 150;

interface Sent {
  code: string;
  messageId: number;
}

/** Sends `total` finder messages over the tags, `concurrency` at a time, running `fault(i)` as message i goes out. */
async function sendMessages(stack: FaultStack, codes: string[], total: number, concurrency: number, figures: RetryFigures, fault: (index: number) => Promise<void>): Promise<Sent[]> {
  const tokens = new Map<string, string>();
  const sent: Sent[] = [];
  let next = 0;
  const faults: Array<Promise<void>> = [];
  // The first failure stops every worker (the test fails then, and nothing may keep sending after its stack stops),
  // and is what the test reports: the workers that stop after it fail for its sake.
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    for (let index = next++; index < total && !failure; index = next++) {
      try {
        const faulting = fault(index);
        // Handled here, so that a fault failing while messages still go out is not an unhandled rejection; reported below.
        faulting.catch(() => undefined);
        faults.push(faulting);
        const code = codes[Math.floor(index / PER_TAG)];
        const key = randomUUID();
        const send = () =>
          call<{ message: { id: number }; finder_token?: string }>(stack, 'POST', `/items/${code}/messages`, { content: `Message ${index}: found it near the bench.` }, {
            'idempotency-key': key,
            ...(tokens.has(code) ? { 'x-finder-token': tokens.get(code) as string } : {}),
          });
        // The first message of a tag opens the finder's conversation; later ones wait for its token.
        while (!tokens.has(code) && index % PER_TAG !== 0 && !failure) await new Promise((resolveWait) => setTimeout(resolveWait, 50));
        if (failure) return;
        const answer = await untilAcknowledged(send, figures);
        if (answer.status !== 201) throw new Error(`message ${index}: ${answer.status} ${JSON.stringify(answer.body)}`);
        if (answer.body.finder_token) tokens.set(code, answer.body.finder_token);
        sent.push({ code, messageId: answer.body.message.id });
      } catch (error) {
        failure ??= { error };
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  // Every fault ends too (a frozen NATS is resumed) before this returns or throws, so the stack stops cleanly.
  const faulted = (await Promise.allSettled(faults)).find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failure) throw failure.error;
  if (faulted) throw faulted.reason;
  return sent;
}

async function messageRows(stack: FaultStack): Promise<Map<number, number>> {
  const db = new Client({ connectionString: stack.postgres.url });
  await db.connect();
  try {
    const { rows } = await db.query<{ id: number; copies: number }>(`SELECT id::int, count(*)::int AS copies FROM messaging.messages GROUP BY id`);
    return new Map(rows.map((row) => [row.id, row.copies]));
  } finally {
    await db.end();
  }
}

async function checkEveryAcknowledgedMessage(stack: FaultStack, sent: Sent[]) {
  const rows = await messageRows(stack);
  const lostRows = sent.filter(({ messageId }) => !rows.has(messageId)).length;
  const extraRows = [...rows.values()].reduce((sum, copies) => sum + copies, 0) - sent.length;
  // The outbox drains once NATS and messaging are back: wait for every event, then count.
  let events: Array<{ data: { messageId: number } }> = [];
  const drainStarted = Date.now();
  await expectEventually(
    async () => {
      events = await eventsIn<{ messageId: number }>(stack.nats.url, 'messaging.message.created.v1');
      expect(new Set(events.map((event) => event.data.messageId)).size).toBeGreaterThanOrEqual(sent.length);
    },
    { timeoutMs: 120_000, intervalMs: 1000 },
  ).catch(() => undefined);
  const eventIds = new Set(events.map((event) => event.data.messageId));
  return {
    lostRows,
    extraRows,
    lostEvents: sent.filter(({ messageId }) => !eventIds.has(messageId)).length,
    duplicateEvents: events.length - eventIds.size,
    drainMs: Date.now() - drainStarted,
  };
}

const describeWithInfra = privateInfraAvailable() ? describe : describe.skip;

describeWithInfra('F1: messaging SIGKILLed while finders write', () => {
  let stack: FaultStack;
  beforeAll(async () => {
    stack = await FaultStack.start();
  });
  afterAll(() => stack?.stop());

  it('loses no acknowledged message and duplicates none', async () => {
    const total = sized(300, 10_000);
    const kills = sized(2, 5);
    const figures: RetryFigures = { statuses: new Map() };
    const tags = await ownedTags(stack, Math.ceil(total / PER_TAG), figures);
    const killAt = new Set(Array.from({ length: kills }, (_, k) => Math.floor(((k + 1) * total) / (kills + 1))));
    const sent = await sendMessages(stack, tags.map((tag) => tag.code), total, 4, figures, async (index) => {
      if (killAt.has(index)) await stack.service('messaging').kill('SIGKILL');
    });
    await stack.waitReady('messaging');
    const result = await checkEveryAcknowledgedMessage(stack, sent);
    const crashes = stack.crashes();
    const passed = result.lostRows === 0 && result.extraRows === 0 && result.lostEvents === 0 && result.duplicateEvents === 0 && crashes.length === 0;
    reportFigure({
      id: 'F1',
      test: `messaging SIGKILLed ${kills}× during finder messages`,
      figure: `acknowledged messages lost ${result.lostRows} of ${sent.length}; duplicate rows ${result.extraRows}; events lost ${result.lostEvents}, duplicated ${result.duplicateEvents}; answers ${statusSummary(figures)}`,
      size: `${total} messages, ${kills} kills`,
      passed,
    });
    expect(result).toMatchObject({ lostRows: 0, extraRows: 0, lostEvents: 0, duplicateEvents: 0 });
    expect(crashes).toEqual([]);
    expect(figures.statuses.get(500) ?? 0).toBe(0);
  });
});

describeWithInfra('F4: NATS killed, then frozen, while finders write', () => {
  let stack: FaultStack;
  beforeAll(async () => {
    stack = await FaultStack.start();
  });
  afterAll(() => stack?.stop());

  it('publishes every acknowledged write after it is back, answering 503 (never hanging, never 500) meanwhile', async () => {
    const total = sized(300, 3000);
    const frozenMs = sized(5000, 30_000);
    const figures: RetryFigures = { statuses: new Map() };
    const tags = await ownedTags(stack, Math.ceil(total / PER_TAG), figures);
    const sent = await sendMessages(stack, tags.map((tag) => tag.code), total, 4, figures, async (index) => {
      if (index === Math.floor(total / 3)) {
        await stack.nats.process.kill('SIGKILL');
        await new Promise((resolveWait) => setTimeout(resolveWait, 2000));
        await stack.nats.restart();
      }
      if (index === Math.floor((2 * total) / 3)) {
        stack.nats.process.pause();
        await new Promise((resolveWait) => setTimeout(resolveWait, frozenMs));
        stack.nats.process.resume();
      }
    });
    const result = await checkEveryAcknowledgedMessage(stack, sent);
    const crashes = stack.crashes();
    // Every service recovers by itself, without a restart.
    for (const service of ['gateway', 'identity', 'items', 'messaging', 'notifications'] as const) await stack.waitReady(service);
    const passed = result.lostEvents === 0 && result.duplicateEvents === 0 && result.lostRows === 0 && crashes.length === 0 && !figures.statuses.get(500);
    reportFigure({
      id: 'F4',
      test: 'nats-server SIGKILLed (2 s), then SIGSTOPped, during finder messages',
      figure: `events lost ${result.lostEvents} of ${sent.length}; duplicated ${result.duplicateEvents}; all published ${(result.drainMs / 1000).toFixed(1)} s after the last acknowledgement; answers ${statusSummary(figures)}`,
      size: `${total} messages, SIGSTOP ${frozenMs / 1000} s`,
      passed,
    });
    expect(result).toMatchObject({ lostRows: 0, extraRows: 0, lostEvents: 0, duplicateEvents: 0 });
    expect(crashes).toEqual([]);
    expect(figures.statuses.get(500) ?? 0).toBe(0);
    // Health is answered throughout: nothing was restarted by the harness.
    expect(stack.service('messaging').restartCount).toBe(0);
  });
});

function statusSummary(figures: RetryFigures): string {
  return [...figures.statuses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status === 0 ? 'network error' : status}×${count}`)
    .join(', ');
}
