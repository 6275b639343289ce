import type { DatabaseOptions } from '@homing/platform';
import type { NotificationsConfig } from '../config/notifications.config';
import { CreateDeliveries1764100000000 } from './migrations/1764100000000-CreateDeliveries';
import { CreateMessageMailWindows1764200000000 } from './migrations/1764200000000-CreateMessageMailWindows';
import { CreatePushSubscriptions1764300000000 } from './migrations/1764300000000-CreatePushSubscriptions';
import { DeliveriesSkipped1764810000001 } from './migrations/1764810000001-DeliveriesSkipped';
import { MessageMailWindowsMessage1764810000002 } from './migrations/1764810000002-MessageMailWindowsMessage';
import { RetentionIndexes1764900000002 } from './migrations/1764900000002-RetentionIndexes';
import { CreateScanAlertWindows1765310000000 } from './migrations/1765310000000-CreateScanAlertWindows';
import { CreateItemPeople1765400000000 } from './migrations/1765400000000-CreateItemPeople';
import { DeliveriesClaim1766000000000 } from './migrations/1766000000000-DeliveriesClaim';
import { DeliveriesRecipientIndex1766100000000 } from './migrations/1766100000000-DeliveriesRecipientIndex';
import { PushSubscriptionsOwnerEndpoint1766200000000 } from './migrations/1766200000000-PushSubscriptionsOwnerEndpoint';
import { PushSubscriptionsSession1766300000000 } from './migrations/1766300000000-PushSubscriptionsSession';

/** WARNING: the schema name is where this service's data lives; renaming it loses the data. */
export const NOTIFICATIONS_SCHEMA = 'notifications';

export function notificationsDatabase(config: NotificationsConfig): DatabaseOptions {
  return {
    url: config.DATABASE_URL,
    schema: config.DATABASE_SCHEMA ?? NOTIFICATIONS_SCHEMA,
    applicationName: `notifications-${config.NOTIFICATIONS_ROLE}`,
    migrations: [CreateDeliveries1764100000000, CreateMessageMailWindows1764200000000, CreatePushSubscriptions1764300000000, DeliveriesSkipped1764810000001, MessageMailWindowsMessage1764810000002, RetentionIndexes1764900000002, CreateScanAlertWindows1765310000000, CreateItemPeople1765400000000, DeliveriesClaim1766000000000, DeliveriesRecipientIndex1766100000000, PushSubscriptionsOwnerEndpoint1766200000000, PushSubscriptionsSession1766300000000],
  };
}
