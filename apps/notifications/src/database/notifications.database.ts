import type { DatabaseOptions } from '@homing/platform';
import type { NotificationsConfig } from '../config/notifications.config';

/** WARNING: the schema name is where this service's data lives; renaming it loses the data. */
export const NOTIFICATIONS_SCHEMA = 'notifications';

export function notificationsDatabase(config: NotificationsConfig): DatabaseOptions {
  return {
    url: config.DATABASE_URL,
    schema: config.DATABASE_SCHEMA ?? NOTIFICATIONS_SCHEMA,
    applicationName: `notifications-${config.NOTIFICATIONS_ROLE}`,
    // Push subscriptions and delivery records arrive with the notification issues.
    migrations: [],
  };
}
