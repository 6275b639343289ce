import type { PushSubscriber } from '@homing/contracts';
import type { ItemRecipient, ItemRecipientsService } from '../item-people/item-recipients.service';
import type { EmailQueueRepository } from '../jobs/email-queue.repository';
import type { PushQueueRepository } from '../jobs/push-queue.repository';
import { RETIRED_DURABLE_CONSUMERS } from '../persisted-names';
import type { PushSubscriptionsRepository } from '../push-subscriptions/push-subscriptions.repository';
import { CO_OWNER, CONVERSATION, messageCreated, OWNER } from '../testing/message-created.fixture';
import type { MessageMailWindowsRepository } from './message-mail-windows.repository';
import { NewMessageConsumer, ownerEmailDelayMs } from './new-message.consumer';

const event = (author: 'finder' | 'owner') => messageCreated(author, 'event-2');

/**
 * `people`: the item's people, each with `subscriptions` (read with them, in one statement); a finder's conversation has
 * a phone and a laptop subscribed.
 */
function setUp(
  subscriptions: string[] = [],
  window: { eventId: string; messageId: number } | null = { eventId: 'event-1', messageId: 41 },
  people: ItemRecipient[] = [{ userId: OWNER, email: true, push: true }],
) {
  const emails = { enqueue: jest.fn(async () => 'job') };
  const pushes = { enqueue: jest.fn(async (_job: { data: { subscriptionId: string } }, _eventId: string) => 'job') };
  const windows = { windowOf: jest.fn(async () => window) };
  const finderSubscriptions = {
    listFor: jest.fn(async (subscriber: PushSubscriber) => {
      const id = 'userId' in subscriber ? subscriber.userId : `finder:${subscriber.conversationId}`;
      return [{ id: `${id}/phone` }, { id: `${id}/laptop` }];
    }),
  };
  const recipients = {
    recipientsWithSubscriptionsOf: jest.fn(async () => people.map((person) => ({ ...person, subscriptionIds: subscriptions.map((device) => `${person.userId}/${device}`) }))),
  };
  const consumer = new NewMessageConsumer(
    emails as unknown as EmailQueueRepository,
    pushes as unknown as PushQueueRepository,
    windows as unknown as MessageMailWindowsRepository,
    finderSubscriptions as unknown as PushSubscriptionsRepository,
    recipients as unknown as ItemRecipientsService,
    { OWNER_EMAIL_DELAY_MINUTES: 0.5 },
  );
  return { consumer, emails, pushes, windows, finderSubscriptions, recipients };
}

describe('the consumer of messages', () => {
  it('takes over the two consumers that pushed and e-mailed apart', () => {
    expect(setUp().consumer.succeeds).toEqual([RETIRED_DURABLE_CONSUMERS.newMessageMail, RETIRED_DURABLE_CONSUMERS.newMessagePush]);
    expect(setUp().consumer.durableName).toBe('notifications__new-message');
  });
});

describe('the owner’s delayed e-mail', () => {
  it('waits the configured minutes (decimals too) for an owner with push, and not at all for one without', () => {
    expect(ownerEmailDelayMs(true, 10)).toBe(600_000);
    expect(ownerEmailDelayMs(true, 0.05)).toBe(3_000);
    expect(ownerEmailDelayMs(false, 10)).toBe(0);
    expect(ownerEmailDelayMs(true, 0)).toBe(0);
  });

  it('enqueues the window’s job with the delay, naming the message that opened the window', async () => {
    const withPush = setUp(['phone']);
    await withPush.consumer.handle(event('finder'));
    expect(withPush.recipients.recipientsWithSubscriptionsOf).toHaveBeenCalledWith('ABCDEFGHJKMNPQRS', OWNER);
    expect(withPush.emails.enqueue).toHaveBeenCalledWith(
      { kind: 'new-message', data: { userId: OWNER, tagCode: 'ABCDEFGHJKMNPQRS', conversationId: CONVERSATION, messageId: 41 } },
      'event-1',
      { delayMs: 30_000 },
    );

    const withoutPush = setUp([]);
    await withoutPush.consumer.handle(event('finder'));
    expect(withoutPush.emails.enqueue).toHaveBeenCalledWith(expect.anything(), 'event-1', { delayMs: 0 });
  });

  it('opens the window and reads the item’s people side by side (each a round trip before the job is queued)', async () => {
    const { consumer, emails, recipients, windows } = setUp([]);
    let peopleAsked!: () => void;
    const asked = new Promise<void>((resolve) => (peopleAsked = resolve));
    recipients.recipientsWithSubscriptionsOf.mockImplementation(async () => {
      peopleAsked();
      return [{ userId: OWNER, email: true, push: false, subscriptionIds: [] }];
    });
    // The window is decided only once the people were asked: a handler that waited for the window first never ends.
    windows.windowOf.mockImplementation(async () => {
      await asked;
      return { eventId: 'event-1', messageId: 41 };
    });
    await consumer.handle(event('finder'));
    expect(emails.enqueue).toHaveBeenCalledWith(expect.objectContaining({ kind: 'new-message' }), 'event-1', { delayMs: 0 });
  });

  it('gives the owner and each co-owner with e-mail on their own job of the window, none to one with e-mail off', async () => {
    const { consumer, emails, recipients } = setUp(['phone'], { eventId: 'event-1', messageId: 41 }, [
      { userId: OWNER, email: true, push: true },
      { userId: CO_OWNER, email: true, push: false },
      { userId: '55555555-5555-4555-8555-555555555555', email: false, push: true },
    ]);
    await consumer.handle(event('finder'));
    expect(recipients.recipientsWithSubscriptionsOf).toHaveBeenCalledTimes(1);
    expect(emails.enqueue.mock.calls).toEqual([
      [{ kind: 'new-message', data: { userId: OWNER, tagCode: 'ABCDEFGHJKMNPQRS', conversationId: CONVERSATION, messageId: 41 } }, 'event-1', { delayMs: 30_000 }],
      // Push off for the item: they were not pushed, so their e-mail does not wait for one, whatever subscriptions they have.
      [{ kind: 'new-message', data: { userId: CO_OWNER, tagCode: 'ABCDEFGHJKMNPQRS', conversationId: CONVERSATION, messageId: 41 } }, 'event-1', { delayMs: 0 }],
    ]);
  });

  it('sends no e-mail for a message older than the window in force, but pushes it', async () => {
    const { consumer, emails, pushes } = setUp(['phone'], null);
    await consumer.handle(event('finder'));
    expect(emails.enqueue).not.toHaveBeenCalled();
    expect(pushes.enqueue.mock.calls.map(([job]) => job.data.subscriptionId)).toEqual([`${OWNER}/phone`]);
  });
});

describe('a message’s pushes', () => {
  it('pushes a finder’s message to every subscription of each person of the item with push on, from the one read of the people', async () => {
    const { consumer, pushes, finderSubscriptions, recipients } = setUp(
      ['phone', 'laptop'],
      { eventId: 'event-1', messageId: 41 },
      [
        { userId: OWNER, email: true, push: true },
        { userId: CO_OWNER, email: false, push: true },
        { userId: '55555555-5555-4555-8555-555555555555', email: true, push: false },
      ],
    );
    await consumer.handle(event('finder'));
    expect(recipients.recipientsWithSubscriptionsOf).toHaveBeenCalledTimes(1);
    expect(finderSubscriptions.listFor).not.toHaveBeenCalled();
    expect(pushes.enqueue.mock.calls.map(([job, eventId]) => [job.data.subscriptionId, eventId])).toEqual([
      [`${OWNER}/phone`, 'event-2'],
      [`${OWNER}/laptop`, 'event-2'],
      [`${CO_OWNER}/phone`, 'event-2'],
      [`${CO_OWNER}/laptop`, 'event-2'],
    ]);
    expect(pushes.enqueue).toHaveBeenCalledWith(
      { kind: 'new-message', data: { subscriptionId: `${OWNER}/phone`, tagCode: 'ABCDEFGHJKMNPQRS', author: 'finder', conversationId: CONVERSATION, messageId: 42 } },
      'event-2',
    );
  });

  it('pushes and e-mails a reply to the finder of that conversation, without reading the item’s people', async () => {
    const { consumer, pushes, emails, recipients, windows } = setUp(['phone']);
    await consumer.handle(event('owner'));
    expect(recipients.recipientsWithSubscriptionsOf).not.toHaveBeenCalled();
    expect(windows.windowOf).not.toHaveBeenCalled();
    expect(pushes.enqueue.mock.calls.map(([job]) => job.data.subscriptionId)).toEqual([`finder:${CONVERSATION}/phone`, `finder:${CONVERSATION}/laptop`]);
    expect(emails.enqueue).toHaveBeenCalledWith({ kind: 'owner-reply', data: { conversationId: CONVERSATION, tagCode: 'ABCDEFGHJKMNPQRS', messageId: 42 } }, 'event-2');
  });

  it('queues a reply’s pushes even when its e-mail could not be queued, and fails for the redelivery', async () => {
    const { consumer, pushes, emails } = setUp();
    emails.enqueue.mockRejectedValueOnce(new Error('Redis away'));
    await expect(consumer.handle(event('owner'))).rejects.toThrow('Redis away');
    expect(pushes.enqueue).toHaveBeenCalledTimes(2);
  });
});
