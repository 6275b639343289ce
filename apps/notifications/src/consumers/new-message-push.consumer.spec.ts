import type { PushSubscriber } from '@homing/contracts';
import type { ItemRecipient, ItemRecipientsService } from '../item-people/item-recipients.service';
import type { PushQueueRepository } from '../jobs/push-queue.repository';
import type { PushSubscriptionsRepository } from '../push-subscriptions/push-subscriptions.repository';
import { CO_OWNER, CONVERSATION, messageCreated, OWNER } from '../testing/message-created.fixture';
import { NewMessagePushConsumer } from './new-message-push.consumer';

const event = (author: 'finder' | 'owner') => messageCreated(author, 'event-1');

/** `people`: the item's people, each with a phone and a laptop subscribed (read with them, in one statement). */
function setUp(people: ItemRecipient[]) {
  const pushes = { enqueue: jest.fn(async (_job: { data: { subscriptionId: string } }, _eventId: string) => 'job') };
  const subscriptions = {
    listFor: jest.fn(async (subscriber: PushSubscriber) => {
      const id = 'userId' in subscriber ? subscriber.userId : `finder:${subscriber.conversationId}`;
      return [{ id: `${id}/phone` }, { id: `${id}/laptop` }];
    }),
  };
  const recipients = {
    recipientsWithSubscriptionsOf: jest.fn(async () => people.map((person) => ({ ...person, subscriptionIds: [`${person.userId}/phone`, `${person.userId}/laptop`] }))),
  };
  const consumer = new NewMessagePushConsumer(pushes as unknown as PushQueueRepository, subscriptions as unknown as PushSubscriptionsRepository, recipients as unknown as ItemRecipientsService);
  return { consumer, pushes, subscriptions, recipients };
}

describe('a message’s pushes', () => {
  it('pushes a finder’s message to every subscription of each person of the item with push on, read with the people', async () => {
    const { consumer, pushes, subscriptions } = setUp([
      { userId: OWNER, email: true, push: true },
      { userId: CO_OWNER, email: false, push: true },
      { userId: '55555555-5555-4555-8555-555555555555', email: true, push: false },
    ]);
    await consumer.handle(event('finder'));
    expect(subscriptions.listFor).not.toHaveBeenCalled();
    const pushed = pushes.enqueue.mock.calls.map(([job, eventId]) => [job.data.subscriptionId, eventId]);
    expect(pushed).toEqual([
      [`${OWNER}/phone`, 'event-1'],
      [`${OWNER}/laptop`, 'event-1'],
      [`${CO_OWNER}/phone`, 'event-1'],
      [`${CO_OWNER}/laptop`, 'event-1'],
    ]);
    expect(pushes.enqueue).toHaveBeenCalledWith(
      { kind: 'new-message', data: { subscriptionId: `${OWNER}/phone`, tagCode: 'ABCDEFGHJKMNPQRS', author: 'finder', conversationId: CONVERSATION, messageId: 42 } },
      'event-1',
    );
  });

  it('pushes a reply to the finder of that conversation', async () => {
    const { consumer, pushes, recipients } = setUp([{ userId: OWNER, email: true, push: true }]);
    await consumer.handle(event('owner'));
    expect(recipients.recipientsWithSubscriptionsOf).not.toHaveBeenCalled();
    expect(pushes.enqueue.mock.calls.map(([job]) => job.data.subscriptionId)).toEqual([
      `finder:${CONVERSATION}/phone`,
      `finder:${CONVERSATION}/laptop`,
    ]);
  });
});
