import { Module } from '@nestjs/common';
import { PushSubscriptionsRepository } from './push-subscriptions.repository';
import { PushSubscriptionsRpcController } from './push-subscriptions.rpc-controller';
import { PushSubscriptionsService } from './push-subscriptions.service';

/** The browsers' push subscriptions and the RPCs the gateway registers them through (roles `consumer` and `all`). */
@Module({
  controllers: [PushSubscriptionsRpcController],
  providers: [PushSubscriptionsService, PushSubscriptionsRepository],
  exports: [PushSubscriptionsRepository],
})
export class PushSubscriptionsModule {}
