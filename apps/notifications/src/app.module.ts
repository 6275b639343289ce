import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { PlatformModule, READINESS_CHECKS, retentionProviders } from '@homing/platform';
import { EmailModule } from './channels/email/email.module';
import { PushModule } from './channels/push/push.module';
import type { NotificationsConfig, NotificationsRole } from './config/notifications.config';
import { ConsumersModule } from './consumers/consumers.module';
import { notificationsDatabase } from './database/notifications.database';
import { ExportModule } from './export/export.module';
import { ItemPeopleModule } from './item-people/item-people.module';
import { QueueDepthsRepository } from './jobs/queue-depths.repository';
import { PushSubscriptionsModule } from './push-subscriptions/push-subscriptions.module';
import { RedisDurabilityCheck } from './redis/redis-durability.check';
import { notificationsRetentionRules } from './retention/notifications-retention';

/**
 * What each role runs (ARCHITECTURE §1, one image): `consumer` the event consumers, which enqueue, the push
 * subscription RPCs and the item settings RPCs; `worker` the queue workers, which send, and nothing else; `all` both.
 */
export function modulesOfRole(role: NotificationsRole): Type[] {
  const consumers = [ConsumersModule, PushSubscriptionsModule, ItemPeopleModule, ExportModule];
  const workers = [EmailModule, PushModule];
  switch (role) {
    case 'consumer':
      return consumers;
    case 'worker':
      return workers;
    case 'all':
      return [...consumers, ...workers];
  }
}

@Module({})
export class AppModule {
  static forConfig(config: NotificationsConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forService({
          service: 'notifications',
          config,
          database: notificationsDatabase(config),
          // `notifications.message.delivered.v1`, recorded with the delivery that caused it.
          outbox: true,
          redisUrl: config.REDIS_URL,
        }),
        ...modulesOfRole(config.NOTIFICATIONS_ROLE),
      ],
      // Every role: queue depths at /metrics, and whether Redis keeps what it is given.
      providers: [
        RedisDurabilityCheck,
        { provide: READINESS_CHECKS, useFactory: (durability: RedisDurabilityCheck) => [durability], inject: [RedisDurabilityCheck] },
        QueueDepthsRepository,
        // Every role runs the retention rules: the deletes are idempotent, so replicas may overlap.
        ...retentionProviders(notificationsRetentionRules),
      ],
    };
  }
}
