import { AckPolicy, DeliverPolicy, type JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders, nanos, type MsgHdrs } from '@nats-io/transport-node';
import type { JetStreamStreams } from '../nats/jetstream-streams';
import type { NatsClient } from '../nats/nats.connection';
import type { DeadLetterSink } from './event-processor';
import { REPLAY_FOR_HEADER } from './event-processor';

// Headers a dead letter carries, so an operator can see why and `replay-dead-letters` knows where it came from.
export const DEAD_LETTER_HEADERS = {
  consumer: 'Homing-Dead-Letter-Consumer',
  reason: 'Homing-Dead-Letter-Reason',
  subject: 'Homing-Dead-Letter-Subject',
  stream: 'Homing-Dead-Letter-Stream',
  sequence: 'Homing-Dead-Letter-Sequence',
  /** Set when only the event's id was kept (an event of the secrets stream). */
  redacted: 'Homing-Dead-Letter-Redacted',
} as const;

/**
 * Copies events a consumer gives up on to `deadletter.<consumer>` in the dead-letter stream, with why. Events of
 * the secrets stream (login codes, reset links) are dead-lettered as `{id, subject, consumer, reason}` only: a dead
 * letter is kept 30 days, a secret must not be.
 */
export class NatsDeadLetterSink implements DeadLetterSink {
  constructor(
    private readonly nats: NatsClient,
    private readonly streams: JetStreamStreams,
  ) {}

  async send(consumer: string, msg: JsMsg, reason: string, eventId?: string): Promise<void> {
    await this.streams.ensure();
    const subject = this.nats.namespace.unprefix(msg.subject);
    const secret = msg.info.stream === this.streams.streamName('secrets');
    const headers = natsHeaders();
    if (!secret) for (const [key, values] of headerEntries(msg.headers)) for (const value of values) headers.append(key, value);
    headers.set(DEAD_LETTER_HEADERS.consumer, consumer);
    headers.set(DEAD_LETTER_HEADERS.reason, oneLine(reason));
    headers.set(DEAD_LETTER_HEADERS.subject, subject);
    headers.set(DEAD_LETTER_HEADERS.stream, msg.info.stream);
    headers.set(DEAD_LETTER_HEADERS.sequence, String(msg.info.streamSequence));
    let body: Uint8Array | string = msg.data;
    if (secret) {
      headers.set(DEAD_LETTER_HEADERS.redacted, '1');
      body = JSON.stringify({ id: eventId ?? msg.headers?.get('Nats-Msg-Id') ?? null, subject, consumer, reason });
    }
    await this.nats.js.publish(this.streams.deadLetterSubject(consumer), body, {
      headers,
      msgID: `${consumer}:${msg.info.stream}:${msg.info.streamSequence}`,
    });
  }
}

export interface ReplayReport {
  replayed: number;
  /** Dead letters of the secrets stream: only their id was kept, so there is nothing to replay. */
  notReplayable: number;
}

/**
 * Republishes dead letters to the consumer that gave up on them, after a fix: each goes back to its original subject
 * marked for that consumer only (other consumers of the subject skip it; the consumer's staleness cutoff does not
 * apply), then is removed from the dead-letter stream. Replays one consumer's dead letters, or those of every
 * consumer of a service (durable names `<service>__<purpose>`).
 */
export async function replayDeadLetters(
  nats: NatsClient,
  streams: JetStreamStreams,
  scope: { service: string; consumer?: string },
  log: (line: string) => void = () => undefined,
): Promise<ReplayReport> {
  await streams.ensure();
  const jsm = await nats.jsm();
  const stream = streams.streamName('deadLetters');
  // A durable name is one subject token: `*` matches any consumer, and the service's are picked below.
  const filter = streams.deadLetterSubject(scope.consumer ?? '*');
  const ours = (target: string) => (scope.consumer ? target === scope.consumer : target.startsWith(`${scope.service}__`));
  const info = await jsm.consumers.add(stream, {
    ack_policy: AckPolicy.None,
    deliver_policy: DeliverPolicy.All,
    filter_subject: filter,
    inactive_threshold: nanos(60_000),
  });
  const report: ReplayReport = { replayed: 0, notReplayable: 0 };
  try {
    const reader = await nats.js.consumers.get(stream, info.name);
    let pending = info.num_pending;
    while (pending > 0) {
      const batch = await reader.fetch({ max_messages: Math.min(pending, 100), expires: 5000 });
      let received = 0;
      for await (const msg of batch) {
        received += 1;
        pending -= 1;
        const target = msg.headers?.get(DEAD_LETTER_HEADERS.consumer) ?? '';
        const subject = msg.headers?.get(DEAD_LETTER_HEADERS.subject) ?? '';
        if (!ours(target)) continue;
        if (msg.headers?.get(DEAD_LETTER_HEADERS.redacted) === '1' || !subject || !target) {
          report.notReplayable += 1;
          log(`#${msg.seq} for ${target || '?'}: not replayable (only its id was kept)`);
          continue;
        }
        const headers = natsHeaders();
        for (const [key, values] of headerEntries(msg.headers)) {
          if (Object.values(DEAD_LETTER_HEADERS).includes(key as never) || key.toLowerCase() === 'nats-msg-id') continue;
          for (const value of values) headers.append(key, value);
        }
        headers.set(REPLAY_FOR_HEADER, target);
        await nats.js.publish(nats.namespace.subject(subject), msg.data, { headers, msgID: `replay:${stream}:${msg.seq}` });
        await jsm.streams.deleteMessage(stream, msg.seq, false);
        report.replayed += 1;
        log(`#${msg.seq} → ${subject} for ${target}`);
      }
      if (received === 0) break;
    }
  } finally {
    await jsm.consumers.delete(stream, info.name).catch(() => undefined);
  }
  return report;
}

function headerEntries(headers: MsgHdrs | undefined): Array<[string, string[]]> {
  if (!headers) return [];
  return headers.keys().map((key) => [key, headers.values(key)]);
}

function oneLine(text: string): string {
  // NATS headers are single lines of limited length.
  return text.replace(/[\r\n]+/g, ' ').slice(0, 500);
}
