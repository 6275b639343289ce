import type { ItemRecipient, ItemRecipientsService } from '../item-people/item-recipients.service';
import type { EmailQueueRepository } from '../jobs/email-queue.repository';
import { CO_OWNER, CONVERSATION, messageCreated, OWNER } from '../testing/message-created.fixture';
import type { MessageMailWindowsRepository } from './message-mail-windows.repository';
import { NewMessageMailConsumer, ownerEmailDelayMs } from './new-message-mail.consumer';

const event = (author: 'finder' | 'owner') => messageCreated(author, 'event-2');

function setUp(
  subscriptions: Array<{ id: string }>,
  window: { eventId: string; messageId: number } | null = { eventId: 'event-1', messageId: 41 },
  people: ItemRecipient[] = [{ userId: OWNER, email: true, push: true }],
) {
  const emails = { enqueue: jest.fn(async () => 'job') };
  const windows = { windowOf: jest.fn(async () => window) };
  // Each person's subscriptions come with the item's people, in the same read.
  const recipients = { recipientsWithSubscriptionsOf: jest.fn(async () => people.map((person) => ({ ...person, subscriptionIds: subscriptions.map(({ id }) => id) }))) };
  const consumer = new NewMessageMailConsumer(
    emails as unknown as EmailQueueRepository,
    windows as unknown as MessageMailWindowsRepository,
    recipients as unknown as ItemRecipientsService,
    { OWNER_EMAIL_DELAY_MINUTES: 0.5 },
  );
  return { consumer, emails, recipients };
}

describe('the owner’s delayed e-mail', () => {
  it('waits the configured minutes (decimals too) for an owner with push, and not at all for one without', () => {
    expect(ownerEmailDelayMs(true, 10)).toBe(600_000);
    expect(ownerEmailDelayMs(true, 0.05)).toBe(3_000);
    expect(ownerEmailDelayMs(false, 10)).toBe(0);
    expect(ownerEmailDelayMs(true, 0)).toBe(0);
  });

  it('enqueues the window’s job with the delay, naming the message that opened the window', async () => {
    const withPush = setUp([{ id: 'subscription' }]);
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
    const { consumer, emails, recipients } = setUp([]);
    let peopleAsked!: () => void;
    const asked = new Promise<void>((resolve) => (peopleAsked = resolve));
    recipients.recipientsWithSubscriptionsOf.mockImplementation(async () => {
      peopleAsked();
      return [{ userId: OWNER, email: true, push: false, subscriptionIds: [] }];
    });
    // The window is decided only once the people were asked: a handler that waited for the window first never ends.
    const windows = (consumer as unknown as { windows: { windowOf: jest.Mock } }).windows;
    windows.windowOf.mockImplementation(async () => {
      await asked;
      return { eventId: 'event-1', messageId: 41 };
    });
    await consumer.handle(event('finder'));
    expect(emails.enqueue).toHaveBeenCalledWith(expect.objectContaining({ kind: 'new-message' }), 'event-1', { delayMs: 0 });
  });

  it('gives the owner and each co-owner with e-mail on their own job of the window, none to one with e-mail off', async () => {
    const { consumer, emails, recipients } = setUp([{ id: 'subscription' }], { eventId: 'event-1', messageId: 41 }, [
      { userId: OWNER, email: true, push: true },
      { userId: CO_OWNER, email: true, push: false },
      { userId: '55555555-5555-4555-8555-555555555555', email: false, push: true },
    ]);
    await consumer.handle(event('finder'));
    expect(recipients.recipientsWithSubscriptionsOf).toHaveBeenCalledWith('ABCDEFGHJKMNPQRS', OWNER);
    expect(emails.enqueue.mock.calls).toEqual([
      [{ kind: 'new-message', data: { userId: OWNER, tagCode: 'ABCDEFGHJKMNPQRS', conversationId: CONVERSATION, messageId: 41 } }, 'event-1', { delayMs: 30_000 }],
      // Push off for the item: they were not pushed, so their e-mail does not wait for one, whatever subscriptions they have.
      [{ kind: 'new-message', data: { userId: CO_OWNER, tagCode: 'ABCDEFGHJKMNPQRS', conversationId: CONVERSATION, messageId: 41 } }, 'event-1', { delayMs: 0 }],
    ]);
  });

  it('sends nothing for a message older than the window in force, and e-mails a finder’s reply without delay', async () => {
    const old = setUp([{ id: 'subscription' }], null);
    await old.consumer.handle(event('finder'));
    expect(old.emails.enqueue).not.toHaveBeenCalled();

    const reply = setUp([{ id: 'subscription' }]);
    await reply.consumer.handle(event('owner'));
    expect(reply.emails.enqueue).toHaveBeenCalledWith({ kind: 'owner-reply', data: { conversationId: CONVERSATION, tagCode: 'ABCDEFGHJKMNPQRS', messageId: 42 } }, 'event-2');
    expect(reply.recipients.recipientsWithSubscriptionsOf).not.toHaveBeenCalled();
  });
});
