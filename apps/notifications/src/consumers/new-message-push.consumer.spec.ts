import type { PushSubscriber } from '@homing/contracts';
import type { ItemRecipient, ItemRecipientsService } from '../item-people/item-recipients.service';
import type { PushQueueRepository } from '../jobs/push-queue.repository';
import type { PushSubscriptionsRepository } from '../push-subscriptions/push-subscriptions.repository';
import { CO_OWNER, CONVERSATION, messageCreated, OWNER } from '../testing/message-created.fixture';
import { NewMessagePushConsumer } from './new-message-push.consumer';

const event = (author: 'finder' | 'owner') => messageCreated(author, 'event-1');

/** `people`: the item's people; `told`: how many people's subscriptions the message asks for (those it goes to). */
function setUp(people: ItemRecipient[], told: number) {
  const pushes = { enqueue: jest.fn(async (_job: { data: { subscriptionId: string } }, _eventId: string) => 'job') };
  const asked: string[] = [];
  let everyoneAsked!: () => void;
  const allAsked = new Promise<void>((resolve) => (everyoneAsked = resolve));
  const subscriptions = {
    // Each person's subscriptions come only once every person's were asked: a loop that waited for each never ends.
    listFor: jest.fn(async (subscriber: PushSubscriber) => {
      const id = 'userId' in subscriber ? subscriber.userId : `finder:${subscriber.conversationId}`;
      asked.push(id);
      if (asked.length === told) everyoneAsked();
      await allAsked;
      return [{ id: `${id}/phone` }, { id: `${id}/laptop` }];
    }),
  };
  const recipients = { recipientsOf: jest.fn(async () => people) };
  const consumer = new NewMessagePushConsumer(pushes as unknown as PushQueueRepository, subscriptions as unknown as PushSubscriptionsRepository, recipients as unknown as ItemRecipientsService);
  return { consumer, pushes };
}

describe('a message’s pushes', () => {
  it('pushes a finder’s message to every subscription of each person of the item with push on, asked side by side', async () => {
    const { consumer, pushes } = setUp([
      { userId: OWNER, email: true, push: true },
      { userId: CO_OWNER, email: false, push: true },
      { userId: '55555555-5555-4555-8555-555555555555', email: true, push: false },
    ], 2);
    await consumer.handle(event('finder'));
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
    const { consumer, pushes } = setUp([{ userId: OWNER, email: true, push: true }], 1);
    await consumer.handle(event('owner'));
    expect(pushes.enqueue.mock.calls.map(([job]) => job.data.subscriptionId)).toEqual([
      `finder:${CONVERSATION}/phone`,
      `finder:${CONVERSATION}/laptop`,
    ]);
  });
});
