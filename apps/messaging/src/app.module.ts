import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule, retentionProviders } from '@homing/platform';
import type { MessagingConfig } from './config/messaging.config';
import { messagingDatabase } from './database/messaging.database';
import { ConversationsModule } from './conversations/conversations.module';
import { ExportModule } from './export/export.module';
import { ItemOwnersModule } from './item-owners/item-owners.module';
import { RelayModule } from './relay/relay.module';
import { messagingRetentionRules } from './conversations/conversations-retention';

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
        ExportModule,
        RelayModule,
      ],
      providers: retentionProviders(messagingRetentionRules),
    };
  }
}
