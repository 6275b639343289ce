import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@homing/platform';
import type { MessagingConfig } from './config/messaging.config';
import { messagingDatabase } from './database/messaging.database';
import { ItemOwnersModule } from './item-owners/item-owners.module';

@Module({})
export class AppModule {
  static forConfig(config: MessagingConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forService({
          service: 'messaging',
          logLevel: config.LOG_LEVEL,
          logPretty: config.LOG_PRETTY,
          natsUrl: config.NATS_URL,
          natsNamespace: config.NATS_NAMESPACE,
          database: messagingDatabase(config),
          outbox: true,
        }),
        ItemOwnersModule,
      ],
    };
  }
}
