import { Inject, Injectable } from '@nestjs/common';
import { NOTIFICATIONS_CONFIG, type NotificationsConfig } from '../config/notifications.config';
import { notificationJobId, recipientIdOf, type EmailJobMap, type EmailKind } from './email-jobs';
import { NotificationQueue } from './notification-queue';
import { QUEUES } from './persisted-names';

export { QueueUnavailableError } from './notification-queue';

/** The typed producer side of the `email` queue: consumers enqueue here, the EmailProcessor sends. */
@Injectable()
export class EmailQueue extends NotificationQueue {
  constructor(@Inject(NOTIFICATIONS_CONFIG) config: NotificationsConfig) {
    super(QUEUES.email, config);
  }

  /**
   * Enqueues one e-mail for one recipient of an event. The job id is deterministic, so enqueueing the same event for
   * the same recipient again (a redelivery, a republished event) adds nothing while the first job is kept. `eventId`
   * is the event the mail is about: for a coalesced mail, the event that opened its window.
   */
  enqueue<K extends EmailKind>(kind: K, eventId: string, data: EmailJobMap[K]): Promise<string> {
    return this.add(kind, notificationJobId('email', eventId, recipientIdOf(data)), data);
  }
}
