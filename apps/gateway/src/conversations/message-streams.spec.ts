import { ResponseCode, type Message } from '@homing/contracts';
import { RpcError, type RpcClient } from '@homing/platform';
import { asSeenBy, MessageStreams, type EventSink } from './message-streams';

const A = '0190a000-0000-7000-8000-00000000000a';
const B = '0190a000-0000-7000-8000-00000000000b';

function message(id: number, conversationId: string, finder?: string): Message {
  return { id, conversation_id: conversationId, author: 'finder', content: `message ${id}`, created_at: '2026-01-01T00:00:00.000Z', is_read: false, delivered_at: null, read_at: null, version: id, ...(finder ? { finder } : {}) };
}

/** A client's stream, as the events it received. */
class RecordingSink implements EventSink {
  chunks: string[] = [];
  ended = false;
  private closeListeners: Array<() => void> = [];
  write(chunk: string): number {
    this.chunks.push(chunk);
    return 0;
  }
  end(): void {
    this.ended = true;
    for (const listener of this.closeListeners) listener();
  }
  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }
  get messageIds(): number[] {
    return this.chunks.filter((chunk) => chunk.startsWith('id: ')).map((chunk) => Number(/^id: (\d+)/.exec(chunk)![1]));
  }
  get messages(): Message[] {
    return this.chunks.filter((chunk) => chunk.includes('event: message')).map((chunk) => JSON.parse(/data: (.*)\n/.exec(chunk)![1]) as Message);
  }
}

/** messaging.rpc.messages-after over a thread held in memory; counts the calls. */
function fakeMessaging(thread: Message[]) {
  const calls: Array<{ code: string; after: number }> = [];
  const rpc = {
    request: jest.fn(async (_subject: string, payload: { code: string; after: number }) => {
      calls.push(payload);
      // As messaging answers: newer messages, and those whose receipts changed since.
      return thread.filter((candidate) => candidate.id > payload.after || candidate.version > payload.after);
    }),
  };
  return { rpc: rpc as unknown as RpcClient, calls };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('MessageStreams', () => {
  it('fetches an item’s new message once for all its streams and sends each only what its caller may read', async () => {
    const thread = [message(1, A)];
    const { rpc, calls } = fakeMessaging(thread);
    const streams = new MessageStreams(rpc);
    const owner = new RecordingSink();
    const finderA = new RecordingSink();
    const finderB = new RecordingSink();
    streams.open({ itemCode: 'ITEM', conversationId: null, latestMessageId: 1 }, undefined, owner);
    streams.open({ itemCode: 'ITEM', conversationId: A, latestMessageId: 1 }, undefined, finderA);
    streams.open({ itemCode: 'ITEM', conversationId: B, latestMessageId: 1 }, undefined, finderB);

    thread.push(message(2, A, 'Finder 1'));
    streams.messageCreated('ITEM', A, 2);
    await flush();

    expect(calls).toEqual([{ code: 'ITEM', after: 1 }]);
    expect(owner.messages).toEqual([message(2, A, 'Finder 1')]);
    // The owner's labels are not the finder's to see.
    expect(finderA.messages).toEqual([message(2, A)]);
    expect(finderB.chunks).toEqual([]);
  });

  it('sends the messages a receipts change touched again, without an id line, to the streams of their conversation', async () => {
    const thread = [message(1, A), message(2, B)];
    const { rpc, calls } = fakeMessaging(thread);
    const streams = new MessageStreams(rpc);
    const [owner, finderA, finderB] = [new RecordingSink(), new RecordingSink(), new RecordingSink()];
    streams.open({ itemCode: 'ITEM', conversationId: null, latestMessageId: 2 }, undefined, owner);
    streams.open({ itemCode: 'ITEM', conversationId: A, latestMessageId: 2 }, undefined, finderA);
    streams.open({ itemCode: 'ITEM', conversationId: B, latestMessageId: 2 }, undefined, finderB);

    // Both sides agreed to share contact details: message 1 is stamped again, as written, at version 7.
    thread[0] = { ...message(1, A), content: 'Call me on 06-12345678', version: 7 };
    streams.receiptsChanged('ITEM', A, 7);
    await flush();

    expect(calls).toEqual([{ code: 'ITEM', after: 6 }]);
    const again = `event: message\ndata: ${JSON.stringify(thread[0])}\n\n`;
    expect(owner.chunks).toEqual([again]);
    expect(finderA.chunks).toEqual([again]);
    expect(finderB.chunks).toEqual([]);
    // Nobody streams the item: nothing is fetched.
    streams.receiptsChanged('OTHER', A, 8);
    await flush();
    expect(calls).toHaveLength(1);
  });

  it('does not fetch for events nobody listening may read, nor for messages already fetched', async () => {
    const { rpc, calls } = fakeMessaging([message(5, B)]);
    const streams = new MessageStreams(rpc);
    streams.open({ itemCode: 'ITEM', conversationId: A, latestMessageId: 4 }, undefined, new RecordingSink());
    streams.messageCreated('ITEM', B, 5);
    streams.messageCreated('OTHER', A, 6);
    await flush();
    expect(calls).toEqual([]);
  });

  it('fetches once more after a fetch when events came during it, never two at once', async () => {
    const thread = [message(2, A)];
    const { rpc, calls } = fakeMessaging(thread);
    const streams = new MessageStreams(rpc);
    const owner = new RecordingSink();
    streams.open({ itemCode: 'ITEM', conversationId: null, latestMessageId: 1 }, undefined, owner);
    streams.messageCreated('ITEM', A, 2);
    thread.push(message(3, A));
    streams.messageCreated('ITEM', A, 3);
    await flush();
    await flush();
    expect(calls).toEqual([
      { code: 'ITEM', after: 1 },
      { code: 'ITEM', after: 2 },
    ]);
    expect(owner.messageIds).toEqual([2, 3]);
  });

  it('resumes after Last-Event-ID with one fetch for that client, in order, without repeats', async () => {
    const thread = [message(1, A), message(2, A), message(3, A)];
    const { rpc, calls } = fakeMessaging(thread);
    const streams = new MessageStreams(rpc);
    const resumed = new RecordingSink();
    streams.open({ itemCode: 'ITEM', conversationId: A, latestMessageId: 3 }, 1, resumed);
    thread.push(message(4, A));
    streams.messageCreated('ITEM', A, 4);
    await flush();
    await flush();
    expect(calls[0]).toEqual({ code: 'ITEM', after: 1 });
    expect(resumed.messageIds).toEqual([2, 3, 4]);
  });

  it('tells every stream of a reset item, and ends finders’ streams, whose conversations are gone', () => {
    const { rpc } = fakeMessaging([]);
    const streams = new MessageStreams(rpc);
    const owner = new RecordingSink();
    const finder = new RecordingSink();
    streams.open({ itemCode: 'ITEM', conversationId: null, latestMessageId: 0 }, undefined, owner);
    streams.open({ itemCode: 'ITEM', conversationId: A, latestMessageId: 0 }, undefined, finder);
    streams.conversationsCleared('ITEM', 9);
    expect(owner.chunks).toEqual(['event: cleared\ndata: {}\n\n']);
    expect(finder.chunks).toEqual(['event: cleared\ndata: {}\n\n']);
    expect([owner.ended, finder.ended]).toEqual([false, true]);
    expect(streams.openStreams).toBe(1);
  });

  it('tells the owner and the finder who left, ends that finder’s stream, and leaves other finders alone', () => {
    const { rpc } = fakeMessaging([]);
    const streams = new MessageStreams(rpc);
    const owner = new RecordingSink();
    const leaving = new RecordingSink();
    const other = new RecordingSink();
    streams.open({ itemCode: 'ITEM', conversationId: null, latestMessageId: 0 }, undefined, owner);
    streams.open({ itemCode: 'ITEM', conversationId: A, latestMessageId: 0 }, undefined, leaving);
    streams.open({ itemCode: 'ITEM', conversationId: B, latestMessageId: 0 }, undefined, other);
    streams.finderLeft('ITEM', A, 9);
    const left = `event: finder-left\ndata: {"conversation_id":"${A}"}\n\n`;
    expect(owner.chunks).toEqual([left]);
    expect(leaving.chunks).toEqual([left]);
    expect(other.chunks).toEqual([]);
    expect([owner.ended, leaving.ended, other.ended]).toEqual([false, true, false]);
  });

  it('ends the whole-item streams of whoever is no longer among the item’s people, and no finder’s', () => {
    const { rpc } = fakeMessaging([]);
    const streams = new MessageStreams(rpc);
    const [owner, coOwner, removed, finder, elsewhere] = [new RecordingSink(), new RecordingSink(), new RecordingSink(), new RecordingSink(), new RecordingSink()];
    streams.open({ itemCode: 'ITEM', conversationId: null, latestMessageId: 0 }, undefined, owner, 'owner');
    streams.open({ itemCode: 'ITEM', conversationId: null, latestMessageId: 0 }, undefined, coOwner, 'co-owner');
    streams.open({ itemCode: 'ITEM', conversationId: null, latestMessageId: 0 }, undefined, removed, 'removed');
    streams.open({ itemCode: 'ITEM', conversationId: A, latestMessageId: 0 }, undefined, finder, null);
    streams.open({ itemCode: 'OTHER', conversationId: null, latestMessageId: 0 }, undefined, elsewhere, 'removed');
    streams.peopleChanged('ITEM', new Set(['owner', 'co-owner']));
    expect([owner, coOwner, removed, finder, elsewhere].map((sink) => sink.ended)).toEqual([false, false, true, false, false]);
    // A transfer: the new owner alone.
    streams.peopleChanged('ITEM', new Set(['new-owner']));
    expect([owner, coOwner, finder].map((sink) => sink.ended)).toEqual([true, true, false]);
    expect(streams.openStreams).toBe(2);
  });

  it('sends heartbeats, and ends every stream at shutdown', () => {
    const { rpc } = fakeMessaging([]);
    const streams = new MessageStreams(rpc);
    const sinks = [new RecordingSink(), new RecordingSink()];
    streams.open({ itemCode: 'ONE', conversationId: null, latestMessageId: 0 }, undefined, sinks[0]);
    streams.open({ itemCode: 'TWO', conversationId: null, latestMessageId: 0 }, undefined, sinks[1]);
    streams.heartbeat();
    expect(sinks.map((sink) => sink.chunks)).toEqual([[': heartbeat\n\n'], [': heartbeat\n\n']]);
    streams.beforeApplicationShutdown();
    expect(sinks.map((sink) => sink.ended)).toEqual([true, true]);
    expect(streams.openStreams).toBe(0);
  });

  it('ends the streams of an item messaging no longer knows', async () => {
    const rpc = { request: jest.fn(async () => Promise.reject(RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'Item not found.'))) } as unknown as RpcClient;
    const streams = new MessageStreams(rpc);
    const sink = new RecordingSink();
    streams.open({ itemCode: 'ITEM', conversationId: null, latestMessageId: 0 }, undefined, sink);
    streams.messageCreated('ITEM', A, 1);
    await flush();
    expect(sink.ended).toBe(true);
    expect(streams.openStreams).toBe(0);
  });

  it('forgets a stream when its client goes', () => {
    const { rpc } = fakeMessaging([]);
    const streams = new MessageStreams(rpc);
    const sink = new RecordingSink();
    streams.open({ itemCode: 'ITEM', conversationId: null, latestMessageId: 0 }, undefined, sink);
    sink.end();
    expect(streams.openStreams).toBe(0);
  });
});

describe('asSeenBy', () => {
  const masked = { content: 'call +31 6 •••• ••78', masked: ['phone' as const] };
  const finderWrote = { ...message(1, A, 'Finder 1'), content: 'call 06-12345678', other_side: masked };
  const ownerWrote = { ...message(2, A), author: 'owner' as const, content: 'call 06-12345678', other_side: masked };

  it('shows each message masked to the other side of its writer and as written to its writer, never other_side itself', () => {
    expect(asSeenBy({ conversationId: null }, finderWrote)).toEqual({ ...message(1, A, 'Finder 1'), content: 'call +31 6 •••• ••78', masked: ['phone'] });
    expect(asSeenBy({ conversationId: A }, finderWrote)).toEqual({ ...message(1, A), content: 'call 06-12345678' });
    expect(asSeenBy({ conversationId: A }, ownerWrote)).toEqual({ ...message(2, A), author: 'owner', content: 'call +31 6 •••• ••78', masked: ['phone'] });
    expect(asSeenBy({ conversationId: null }, ownerWrote)).toEqual({ ...message(2, A), author: 'owner', content: 'call 06-12345678' });
  });

  it('leaves a message with nothing masked as it is, but for the finder labels a finder does not see', () => {
    expect(asSeenBy({ conversationId: null }, message(3, A, 'Finder 2'))).toEqual(message(3, A, 'Finder 2'));
    expect(asSeenBy({ conversationId: A }, message(3, A, 'Finder 2'))).toEqual(message(3, A));
  });
});
