import type { DatabaseOptions } from '@homing/platform';
import type { MessagingConfig } from '../config/messaging.config';
import { CreateItemOwners1763856200000 } from './migrations/1763856200000-CreateItemOwners';
import { ItemOwnersVersion1763900000001 } from './migrations/1763900000001-ItemOwnersVersion';
import { CreateConversations1764000000000 } from './migrations/1764000000000-CreateConversations';
import { ItemOwnersName1764100000000 } from './migrations/1764100000000-ItemOwnersName';
import { FinderLanguageAndTokens1764800000000 } from './migrations/1764800000000-FinderLanguageAndTokens';
import { MessageReceipts1764810000000 } from './migrations/1764810000000-MessageReceipts';
import { RetentionIndexes1764900000001 } from './migrations/1764900000001-RetentionIndexes';
import { FinderLeft1764910000001 } from './migrations/1764910000001-FinderLeft';
import { ReplyAddresses1765100000000 } from './migrations/1765100000000-ReplyAddresses';
import { SharedLocations1765300000001 } from './migrations/1765300000001-SharedLocations';
import { SafeHandover1765400000000 } from './migrations/1765400000000-SafeHandover';
import { ItemOwnersCoOwners1765500000000 } from './migrations/1765500000000-ItemOwnersCoOwners';
import { ReplyAddressesByUser1766000000000 } from './migrations/1766000000000-ReplyAddressesByUser';
import { HandoverTriesOfItem1766200000000 } from './migrations/1766200000000-HandoverTriesOfItem';
import { MESSAGING_SCHEMA } from '../persisted-names';

export function messagingDatabase(config: MessagingConfig): DatabaseOptions {
  return {
    url: config.DATABASE_URL,
    schema: config.DATABASE_SCHEMA ?? MESSAGING_SCHEMA,
    applicationName: 'messaging',
    migrations: [CreateItemOwners1763856200000, ItemOwnersVersion1763900000001, CreateConversations1764000000000, ItemOwnersName1764100000000, FinderLanguageAndTokens1764800000000, MessageReceipts1764810000000, RetentionIndexes1764900000001, FinderLeft1764910000001, ReplyAddresses1765100000000, SharedLocations1765300000001, SafeHandover1765400000000, ItemOwnersCoOwners1765500000000, ReplyAddressesByUser1766000000000, HandoverTriesOfItem1766200000000],
  };
}
