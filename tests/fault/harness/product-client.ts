import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { parseTagCode, STREAMS, type DomainEvent } from '@homing/contracts';
import { Client } from 'pg';
import { expectEventually, runServiceCommand } from '@homing/testing';
import type { FaultStack } from './fault-stack';

// What the fault tests do to the product, as its clients do it: through the gateway, retrying what failed with
// the same Idempotency-Key (the web app's contract), so "acknowledged" means a 2xx the client saw.

let forwardedFor = 0;
/** A different client address per request: the per-address limits are not what these tests measure. */
export const clientAddress = (): string => {
  forwardedFor += 1;
  return `10.${(forwardedFor >> 16) & 255}.${(forwardedFor >> 8) & 255}.${forwardedFor & 255}`;
};

export interface Answer<T> {
  status: number;
  body: T;
}

export async function call<T>(stack: FaultStack, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer<T>> {
  const response = await fetch(`${stack.api}${path}`, {
    method,
    headers: { 'x-forwarded-for': clientAddress(), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

export interface RetryFigures {
  /** Answers by status while retrying (network errors as 0). */
  statuses: Map<number, number>;
}

/**
 * Sends until a 2xx, as a client would: network errors, 503 and 504 are retried after a short pause with the same
 * request (and Idempotency-Key). Anything else is returned as it is.
 */
export async function untilAcknowledged<T>(send: () => Promise<Answer<T>>, figures: RetryFigures, deadlineMs = 120_000): Promise<Answer<T>> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    let answer: Answer<T> | undefined;
    try {
      answer = await send();
    } catch {
      answer = undefined;
    }
    const status = answer?.status ?? 0;
    figures.statuses.set(status, (figures.statuses.get(status) ?? 0) + 1);
    if (answer && (status < 500 || status > 504 || status === 501)) return answer;
    if (Date.now() > deadline) throw new Error(`still ${status} after ${deadlineMs} ms`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 250));
  }
}

/**
 * Mints tags with items' own command and activates each for a new owner; resolves with the codes once messaging knows
 * them too, so that a finder may write about them at once.
 */
export async function ownedTags(stack: FaultStack, count: number, figures: RetryFigures): Promise<Array<{ code: string; email: string }>> {
  const codes = (await runServiceCommand('items', ['seed-tags', '--count', String(count)], stack.envOf('items'))).trim().split('\n');
  const owned: Array<{ code: string; email: string }> = [];
  for (const code of codes) {
    const email = `owner-${randomUUID()}@example.test`;
    const answer = await untilAcknowledged(() => call<{ response_code: string }>(stack, 'POST', '/claim', { code, email }), figures);
    if (answer.status !== 200) throw new Error(`claim ${code}: ${answer.status} ${JSON.stringify(answer.body)}`);
    owned.push({ code, email });
  }
  await untilMessagingKnows(stack, codes);
  return owned;
}

/**
 * Waits until messaging has projected every code's activation (`item_owners`, from items' event): until then a finder's
 * message is the 404 of a code not yet activated. Here a finder writes within milliseconds of the claim, and on a busy
 * machine the event can take longer than that to arrive; in life the owner sticks the tag on first.
 */
async function untilMessagingKnows(stack: FaultStack, codes: string[]): Promise<void> {
  // As messaging keeps them: `ABCD-1234-…` printed by seed-tags, `ABCD1234…` stored.
  const canonical = codes.map((code) => parseTagCode(code) ?? code);
  const db = new Client({ connectionString: stack.postgres.url });
  await db.connect();
  try {
    await expectEventually(
      async () => {
        const { rows } = await db.query<{ item_code: string }>(
          'SELECT item_code FROM messaging.item_owners WHERE item_code = ANY($1) AND owner_user_id IS NOT NULL AND deleted_at IS NULL',
          [canonical],
        );
        const known = new Set(rows.map((row) => row.item_code));
        const unknown = codes.filter((_, index) => !known.has(canonical[index]));
        if (unknown.length > 0) throw new Error(`messaging does not know ${unknown.length} of ${codes.length} activated tags yet: ${unknown.join(', ')}`);
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
  } finally {
    await db.end();
  }
}

/** Every event of a subject in the events stream, read from the start by an ephemeral consumer. */
export async function eventsIn<T = unknown>(natsUrl: string, subject: string): Promise<Array<DomainEvent & { data: T }>> {
  const nc = await connect({ servers: natsUrl });
  try {
    const manager = await jetstreamManager(nc);
    const stream = STREAMS.events.name;
    const consumer = await manager.consumers.add(stream, { ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.All, filter_subject: subject, inactive_threshold: 60_000_000_000 });
    const pending = consumer.num_pending;
    const events: Array<DomainEvent & { data: T }> = [];
    if (pending === 0) return events;
    const messages = await (await jetstream(nc).consumers.get(stream, consumer.name)).fetch({ max_messages: pending, expires: 30_000 });
    for await (const message of messages) {
      events.push(message.json());
      if (events.length >= pending) break;
    }
    return events;
  } finally {
    await nc.close();
  }
}
