import type { DatabaseOptions } from '@homing/platform';
import type { MessagingConfig } from '../config/messaging.config';
import { CreateItemOwners1763856200000 } from './migrations/1763856200000-CreateItemOwners';
import { ItemOwnersVersion1763900000001 } from './migrations/1763900000001-ItemOwnersVersion';
import { CreateConversations1764000000000 } from './migrations/1764000000000-CreateConversations';
import { ItemOwnersName1764100000000 } from './migrations/1764100000000-ItemOwnersName';

/** WARNING: the schema name is where this service's data lives; renaming it loses the data. */
export const MESSAGING_SCHEMA = 'messaging';

export function messagingDatabase(config: MessagingConfig): DatabaseOptions {
  return {
    url: config.DATABASE_URL,
    schema: config.DATABASE_SCHEMA ?? MESSAGING_SCHEMA,
    applicationName: 'messaging',
    migrations: [CreateItemOwners1763856200000, ItemOwnersVersion1763900000001, CreateConversations1764000000000, ItemOwnersName1764100000000],
  };
}
