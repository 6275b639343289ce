import type { DomainEvent, PushSubscriber } from '@homing/contracts';
import { NotificationConsumer } from './notification.consumer';
import { MESSAGE_NOTICE_STALE_AFTER_MS } from './stale-after';

/** A consumer of every message written, telling the other side of the conversation (by e-mail, by push). */
export abstract class MessageNoticeConsumer extends NotificationConsumer<'messaging.message.created.v1'> {
  protected constructor(durableName: string) {
    super(durableName, 'messaging.message.created.v1', MESSAGE_NOTICE_STALE_AFTER_MS);
  }
}

/** Who is told of a message: a finder's goes to the item's owner, an owner's reply to the finder of that conversation. */
export function otherSideOf(event: DomainEvent<'messaging.message.created.v1'>): PushSubscriber {
  return event.data.author === 'finder' ? { userId: event.data.ownerUserId } : { conversationId: event.data.conversationId };
}
