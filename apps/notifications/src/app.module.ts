import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule, READINESS_CHECKS } from '@homing/platform';
import { NOTIFICATIONS_CONFIG, type NotificationsConfig } from './config/notifications.config';
import { notificationsDatabase } from './database/notifications.database';
import { RedisDurabilityCheck } from './redis/redis-durability.check';

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
          outbox: false,
          redisUrl: config.REDIS_URL,
        }),
      ],
      providers: [
        { provide: NOTIFICATIONS_CONFIG, useValue: config },
        RedisDurabilityCheck,
        { provide: READINESS_CHECKS, useFactory: (durability: RedisDurabilityCheck) => [durability], inject: [RedisDurabilityCheck] },
      ],
    };
  }
}
