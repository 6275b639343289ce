import { randomUUID } from 'node:crypto';
import type { ThreadAccess } from '@homing/contracts';
import type { RpcClient } from '@homing/platform';
import { fakeNats, settle } from '../testing/fake-nats';
import { MessageStreams } from './message-streams';
import { ThreadAccessCache } from './thread-access-cache';
import { ThreadEvents } from './thread-events';
import { ThreadReaders } from './thread-readers';
import { ThreadWatermarks } from './thread-watermarks';

describe('ThreadEvents', () => {
  const code = 'ABCD-EFGH-JKMN-PQRS';
  const itemCode = 'ABCDEFGHJKMNPQRS';
  const ownerUserId = randomUUID();
  const conversationId = randomUUID();
  const owner = { viewerUserId: ownerUserId, finderToken: undefined };
  let nats: ReturnType<typeof fakeNats>;
  let events: ThreadEvents;
  let readers: ThreadReaders;
  let accessAsked: number;

  beforeEach(async () => {
    nats = fakeNats();
    accessAsked = 0;
    const access: ThreadAccess = { itemCode, conversationId: null, latestMessageId: 5 };
    const rpc = {
      request: jest.fn(async (subject: string) => {
        if (subject !== 'messaging.rpc.thread-access') throw new Error(`unexpected ${subject}`);
        accessAsked += 1;
        return access;
      }),
    } as unknown as RpcClient;
    const watermarks = new ThreadWatermarks();
    const accessCache = new ThreadAccessCache();
    events = new ThreadEvents(nats.client, watermarks, accessCache, new MessageStreams(rpc));
    readers = new ThreadReaders(rpc, watermarks, accessCache);
    events.onModuleInit();
    await settle();
  });

  afterEach(() => events.onApplicationShutdown());

  const messageCreated = (messageId: number) => nats.publish('messaging.message.created.v1', { itemCode, conversationId, messageId, author: 'finder', ownerUserId });

  it('answers an empty poll from the events it heard', async () => {
    messageCreated(5);
    expect(await readers.nothingNewAfter(code, 5, owner)).toBe(true);
    expect(await readers.nothingNewAfter(code, 5, owner)).toBe(true);
    expect(accessAsked).toBe(1);
  });

  it('treats a change of receipts as news for polls below its version, for the owner and the finder of the conversation', async () => {
    messageCreated(5);
    expect(await readers.nothingNewAfter(code, 5, owner)).toBe(true);
    nats.publish('messaging.messages.receipts.v1', { itemCode, conversationId, messageIds: [5] }, 8);
    expect(await readers.nothingNewAfter(code, 5, owner)).toBe(false);
    expect(await readers.nothingNewAfter(code, 8, owner)).toBe(true);
  });

  it('forgets the watermarks and the access it kept when a subscription fails, so the next poll asks messaging', async () => {
    messageCreated(5);
    expect(await readers.nothingNewAfter(code, 5, owner)).toBe(true);
    // Message 6 was written meanwhile; its event was lost with the subscription.
    nats.failSubscription('messaging.message.created.v1');
    expect(await readers.nothingNewAfter(code, 5, owner)).toBe(false);
    // Once subscribed again, what is learnt is trusted again, and messaging authorises the caller anew.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    messageCreated(7);
    expect(await readers.nothingNewAfter(code, 7, owner)).toBe(true);
    expect(accessAsked).toBe(2);
  });

  it('forgets the watermarks and the access it kept when NATS reports a slow consumer', async () => {
    messageCreated(5);
    expect(await readers.nothingNewAfter(code, 5, owner)).toBe(true);
    nats.status({ type: 'slowConsumer', sub: {} as never, pending: 70_000 });
    await settle();
    expect(await readers.nothingNewAfter(code, 5, owner)).toBe(false);
    messageCreated(6);
    expect(await readers.nothingNewAfter(code, 6, owner)).toBe(true);
    expect(accessAsked).toBe(2);
  });

  it('learns nothing while a subscription is missing: a reset alone must not answer "nothing new"', async () => {
    nats.failSubscription('messaging.message.created.v1');
    nats.publish('messaging.conversation.cleared.v1', { itemCode, ownerUserId }, 9);
    expect(await readers.nothingNewAfter(code, 9, owner)).toBe(false);
    expect(accessAsked).toBe(0);
  });
});
