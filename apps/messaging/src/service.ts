import { runService } from '@homing/platform';
import { AppModule } from './app.module';
import { loadMessagingConfig, type MessagingConfig } from './config/messaging.config';
import { messagingDatabase } from './database/messaging.database';
import { messagingRetentionRules } from './conversations/conversations-retention';

export function main(): Promise<void> {
  return runService<MessagingConfig>({
    name: 'messaging',
    loadConfig: () => loadMessagingConfig(),
    port: (config) => config.PORT,
    module: (config) => AppModule.forConfig(config),
    rpc: true,
    database: messagingDatabase,
    retention: messagingRetentionRules,
  });
}
