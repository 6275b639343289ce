import { Inject, Injectable } from '@nestjs/common';
import { NOTIFICATIONS_CONFIG, type NotificationsConfig } from '../config/notifications.config';
import { notificationJobId } from './email-jobs';
import { NotificationQueue } from './notification-queue';
import { QUEUES } from './persisted-names';
import type { PushJobMap, PushKind } from './push-jobs';

/** The typed producer side of the `push` queue: one job per event and subscription (`push_<eventId>_<subscriptionId>`). */
@Injectable()
export class PushQueue extends NotificationQueue {
  constructor(@Inject(NOTIFICATIONS_CONFIG) config: NotificationsConfig) {
    super(QUEUES.push, config);
  }

  enqueue<K extends PushKind>(kind: K, eventId: string, data: PushJobMap[K]): Promise<string> {
    return this.add(kind, notificationJobId('push', eventId, data.subscriptionId), data);
  }
}
