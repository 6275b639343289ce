import type { JsMsg } from '@nats-io/jetstream';
import { expectEventually } from '@homing/testing';
import type { Database } from '../database/database';
import type { JetStreamStreams } from '../nats/jetstream-streams';
import type { NatsClient } from '../nats/nats.connection';
import type { LedgerConsumer } from './event-consumer';
import { EventConsumerRunner, filterSubjectOf, firstUnacknowledged } from './event-consumer.runner';
import type { EventProcessor } from './event-processor';

describe('filterSubjectOf (one filter subject per consumer, as NATS 2.9 allows)', () => {
  it('filters on the subject of a single-subject consumer', () => {
    expect(filterSubjectOf(['items.item.created.v1'])).toBe('items.item.created.v1');
  });

  it('filters on the common prefix of several subjects', () => {
    expect(filterSubjectOf(['t1.items.item.created.v1', 't1.items.item.renamed.v1'])).toBe('t1.items.item.>');
    expect(filterSubjectOf(['items.item.created.v1', 'items.tag.minted.v1'])).toBe('items.>');
  });

  it('takes the whole stream when the subjects share no prefix', () => {
    expect(filterSubjectOf(['items.item.created.v1', 'messaging.message.created.v1'])).toBeUndefined();
  });
});

describe('firstUnacknowledged (where a consumer that takes over another starts)', () => {
  it('starts after the ack floor of one that acknowledged events', () => {
    expect(firstUnacknowledged({ ack_floor: { consumer_seq: 4, stream_seq: 41 }, delivered: { consumer_seq: 6, stream_seq: 57 } })).toBe(42);
  });

  it('starts after where one that was never given an event began (NATS 2.9 reports its floor as 0)', () => {
    expect(firstUnacknowledged({ ack_floor: { consumer_seq: 0, stream_seq: 0 }, delivered: { consumer_seq: 0, stream_seq: 57 } })).toBe(58);
  });

  it('starts at the stream’s first event when one was given events but acknowledged none: its beginning is not reported', () => {
    expect(firstUnacknowledged({ ack_floor: { consumer_seq: 0, stream_seq: 0 }, delivered: { consumer_seq: 2, stream_seq: 57 } })).toBe(1);
  });
});

describe('EventConsumerRunner, given a consumer that takes over others', () => {
  it('refuses a ledger consumer: the ledger rows of those it takes over are kept under their names', () => {
    const consumer: LedgerConsumer = { durableName: 'test__merged', subjects: ['items.item.created.v1'], startFrom: 'all', idempotency: 'ledger', succeeds: ['test__old'], handle: async () => undefined };
    expect(() => new EventConsumerRunner([consumer], {} as Database, {} as NatsClient, {} as JetStreamStreams)).toThrow(/only a handler-idempotent consumer/);
  });
});

describe('EventConsumerRunner, when handling a pulled group fails unexpectedly', () => {
  // The processor settles every event itself, so a rejection from it is a fault below (an ack on a closed connection).
  // It must restart the consumer, not go unobserved: an unobserved rejection ends a Node process.
  it('restarts the consumer and handles the event on the next pull, with no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const msg = { seq: 1 } as unknown as JsMsg;
    // The first two pulls deliver the same event (as JetStream redelivers one not acknowledged), then end; later
    // pulls wait, as an idle pull does, until they are closed.
    let pulls = 0;
    const pull = {
      fetch: async () => {
        pulls += 1;
        let closed!: () => void;
        const whenClosed = new Promise<void>((resolveClose) => (closed = resolveClose));
        const delivers = pulls <= 2;
        return Object.assign(
          (async function* () {
            if (delivers) yield msg;
            else await whenClosed;
          })(),
          { close: async () => closed() },
        );
      },
    };
    const subject = 'items.item.created.v1';
    const nats = {
      connect: async () => undefined,
      isConnected: () => true,
      namespace: { subject: (name: string) => name, unprefix: (name: string) => name },
      jsm: async () => ({ consumers: { info: async () => null, add: async () => undefined, update: async () => undefined } }),
      js: { consumers: { get: async () => pull } },
    } as unknown as NatsClient;
    const streams = { ensure: async () => undefined, streamName: (key: string) => key } as unknown as JetStreamStreams;
    const consumer: LedgerConsumer = { durableName: 'test__projection', subjects: [subject], startFrom: 'all', idempotency: 'ledger', handle: async () => undefined };
    const runner = new EventConsumerRunner([consumer], {} as Database, nats, streams, { baseBackoffMs: 1, maxBackoffMs: 1 });
    const groups: (readonly JsMsg[])[] = [];
    (runner as unknown as { processor: Pick<EventProcessor, 'processEach'> }).processor.processEach = async (_consumer, group) => {
      groups.push(group);
      if (groups.length === 1) throw new Error('connection closed');
      return group.map(() => 'applied' as const);
    };
    try {
      runner.onApplicationBootstrap();
      await expectEventually(() => expect(groups.length).toBeGreaterThanOrEqual(2));
      // A turn of the event loop for Node to report a rejection nobody handled.
      await new Promise((resolveTurn) => setImmediate(resolveTurn));
      expect(unhandled).toEqual([]);
      expect(groups[1]).toEqual([msg]);
    } finally {
      await runner.onModuleDestroy();
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
