import { Injectable } from '@nestjs/common';
import { InjectConfig } from '@homing/platform';
import type { NotificationsConfig } from '../config/notifications.config';
import { QUEUES } from '../persisted-names';
import { recipientIdOf, type EmailJob } from './email-jobs';
import { QueueRepository } from './queue.repository';

/** The `email` queue's producer side: consumers enqueue `email_<eventId>_<recipient>` here, the EmailProcessor sends. */
@Injectable()
export class EmailQueueRepository extends QueueRepository<EmailJob> {
  constructor(@InjectConfig() config: NotificationsConfig) {
    super(QUEUES.email, config);
  }

  protected recipientIdOf(job: EmailJob): string {
    return recipientIdOf(job.data);
  }
}
