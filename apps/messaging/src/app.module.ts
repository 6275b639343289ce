import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@homing/platform';
import type { MessagingConfig } from './config/messaging.config';
import { messagingDatabase } from './database/messaging.database';
import { ConversationsModule } from './conversations/conversations.module';
import { ItemOwnersModule } from './item-owners/item-owners.module';

@Module({})
export class AppModule {
  static forConfig(config: MessagingConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forService({
          service: 'messaging',
          config,
          database: messagingDatabase(config),
          outbox: true,
        }),
        ItemOwnersModule,
        ConversationsModule,
      ],
    };
  }
}
