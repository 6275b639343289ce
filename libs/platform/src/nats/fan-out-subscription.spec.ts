import type { NatsConnection, Status } from '@nats-io/transport-node';
import { FanOutSubscription, type FanOutGap } from './fan-out-subscription';
import { NatsNamespace } from './nats-namespace';

type Callback = (error: Error | null, msg: unknown) => void;

function fakeNats() {
  const subscribed = new Map<string, Callback>();
  const statuses: Status[] = [];
  let wake: (() => void) | undefined;
  let flushes: Array<() => void> = [];
  const connection = {
    subscribe: (subject: string, options: { callback: Callback; queue?: string }) => {
      if (options.queue) throw new Error('a fan-out has no queue group');
      subscribed.set(subject, options.callback);
      return { unsubscribe: () => subscribed.delete(subject) };
    },
    // The server answers a flush once it has every subscription sent before it.
    flush: () => new Promise<void>((resolve) => flushes.push(resolve)),
    isClosed: () => false,
    status: () => ({
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const status = statuses.shift();
          if (status) yield status;
          else await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    }),
  } as unknown as NatsConnection;
  return {
    nats: { connect: () => Promise.resolve(connection), namespace: new NatsNamespace('t1') },
    subscribed,
    answerFlushes() {
      for (const resolve of flushes) resolve();
      flushes = [];
    },
    status(status: Status) {
      statuses.push(status);
      wake?.();
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('FanOutSubscription', () => {
  function open() {
    const fake = fakeNats();
    const heard: string[] = [];
    const gaps: FanOutGap[] = [];
    let lives = 0;
    const fanOut = FanOutSubscription.open(
      fake.nats,
      ['a.b.v1', 'c.d.v1'],
      {
        onMessage: (msg, subject) => {
          if ((msg as unknown) === 'bad') throw new Error('malformed');
          heard.push(`${subject}:${String(msg)}`);
        },
        onGap: (gap) => gaps.push(gap),
        onLive: () => (lives += 1),
      },
      { name: 'test', resubscribeMs: 10 },
    );
    return { fake, fanOut, heard, gaps, lives: () => lives };
  }

  it('subscribes every subject in the namespace, without a queue group, and is live once the server has them', async () => {
    const { fake, fanOut, heard, lives } = open();
    await settle();
    expect([...fake.subscribed.keys()]).toEqual(['t1.a.b.v1', 't1.c.d.v1']);
    expect(fanOut.live).toBe(false);
    fake.answerFlushes();
    await settle();
    expect(fanOut.live).toBe(true);
    expect(lives()).toBe(1);
    fake.subscribed.get('t1.a.b.v1')?.(null, 'one');
    expect(heard).toEqual(['a.b.v1:one']);
    fanOut.close();
    expect(fake.subscribed.size).toBe(0);
  });

  it('reports a message its owner cannot read as a gap, and is live again at the next confirmed flush', async () => {
    const { fake, fanOut, heard, gaps, lives } = open();
    await settle();
    fake.answerFlushes();
    await settle();
    fake.subscribed.get('t1.a.b.v1')?.(null, 'bad');
    expect(gaps).toEqual(['unreadable-message']);
    expect(fanOut.live).toBe(false);
    fake.subscribed.get('t1.a.b.v1')?.(null, 'two');
    expect(heard).toEqual(['a.b.v1:two']);
    fake.answerFlushes();
    await settle();
    expect(fanOut.live).toBe(true);
    expect(lives()).toBe(2);
    fanOut.close();
  });

  it('reports a disconnect and a reconnect as gaps, and is live again once the renewed subscriptions are confirmed', async () => {
    const { fake, fanOut, gaps, lives } = open();
    await settle();
    fake.answerFlushes();
    await settle();
    fake.status({ type: 'disconnect', server: 'x' });
    await settle();
    expect(fanOut.live).toBe(false);
    fake.status({ type: 'reconnect', server: 'x' });
    await settle();
    expect(gaps).toEqual(['disconnect', 'reconnect']);
    expect(fanOut.live).toBe(false);
    fake.answerFlushes();
    await settle();
    expect(fanOut.live).toBe(true);
    expect(lives()).toBe(2);
    fanOut.close();
  });

  it('reports a slow consumer as a gap', async () => {
    const { fake, fanOut, gaps } = open();
    await settle();
    fake.answerFlushes();
    await settle();
    fake.status({ type: 'slowConsumer', sub: {} as never, pending: 1000 });
    await settle();
    expect(gaps).toEqual(['slow-consumer']);
    fake.answerFlushes();
    await settle();
    expect(fanOut.live).toBe(true);
    fanOut.close();
  });

  it('reports a failed subscription as a gap and subscribes again', async () => {
    const { fake, fanOut, gaps, lives } = open();
    await settle();
    fake.answerFlushes();
    await settle();
    const failed = fake.subscribed.get('t1.c.d.v1');
    fake.subscribed.delete('t1.c.d.v1');
    failed?.(new Error('Permissions Violation'), {});
    expect(gaps).toEqual(['subscription-error']);
    expect(fanOut.live).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(fake.subscribed.has('t1.c.d.v1')).toBe(true);
    fake.answerFlushes();
    await settle();
    expect(fanOut.live).toBe(true);
    expect(lives()).toBe(2);
    fanOut.close();
  });
});
