import { Module } from '@nestjs/common';
import { PushSubscriptionsRepository } from '../../push-subscriptions/push-subscriptions.repository';
import { DeliveriesRepository } from '../deliveries.repository';
import { DeliveryReceipts } from '../delivery-receipts';
import { PushProcessor } from './push.processor';
import { WebPushRepository } from './web-push.repository';

/**
 * Sends the `push` queue's jobs (roles `worker` and `all`). It reads and deletes subscriptions through their
 * repository, without the push-subscriptions module: a worker answers no RPC.
 */
@Module({
  providers: [WebPushRepository, PushSubscriptionsRepository, DeliveriesRepository, DeliveryReceipts, PushProcessor],
})
export class PushModule {}
