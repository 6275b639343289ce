import { runService } from '@homing/platform';
import { AppModule } from './app.module';
import { loadNotificationsConfig, type NotificationsConfig } from './config/notifications.config';
import { notificationsDatabase } from './database/notifications.database';
import { notificationsRetentionRules } from './retention/notifications-retention';

export function main(): Promise<void> {
  return runService<NotificationsConfig>({
    name: 'notifications',
    loadConfig: () => loadNotificationsConfig(),
    port: (config) => config.PORT,
    module: (config) => AppModule.forConfig(config),
    // Push subscription RPCs (role consumer or all; a worker has no handlers and answers nothing).
    rpc: true,
    database: notificationsDatabase,
    retention: notificationsRetentionRules,
  });
}
