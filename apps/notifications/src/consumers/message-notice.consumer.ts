import { NotificationConsumer } from './notification.consumer';
import { MESSAGE_NOTICE_STALE_AFTER_MS } from './stale-after';

/** A consumer of every message written, telling the other side of the conversation (by e-mail, by push). */
export abstract class MessageNoticeConsumer extends NotificationConsumer<'messaging.message.created.v1'> {
  protected constructor(durableName: string) {
    super(durableName, 'messaging.message.created.v1', MESSAGE_NOTICE_STALE_AFTER_MS);
  }
}

