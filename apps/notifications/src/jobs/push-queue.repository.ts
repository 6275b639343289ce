import { Injectable } from '@nestjs/common';
import { InjectConfig } from '@homing/platform';
import type { NotificationsConfig } from '../config/notifications.config';
import { QUEUES } from '../persisted-names';
import type { PushJob } from './push-jobs';
import { QueueRepository } from './queue.repository';

/** The `push` queue's producer side: one job per event and subscription (`push_<eventId>_<subscriptionId>`). */
@Injectable()
export class PushQueueRepository extends QueueRepository<PushJob> {
  constructor(@InjectConfig() config: NotificationsConfig) {
    super(QUEUES.push, config);
  }

  protected recipientIdOf(job: PushJob): string {
    return job.data.subscriptionId;
  }
}
