import type { DatabaseOptions } from '@homing/platform';
import type { ItemsConfig } from '../config/items.config';
import { CreateItems1763856100000 } from './migrations/1763856100000-CreateItems';
import { AddItemVersion1763900000000 } from './migrations/1763900000000-AddItemVersion';
import { CreateTagBatches1763950000000 } from './migrations/1763950000000-CreateTagBatches';
import { CreateItemPhotos1763960000000 } from './migrations/1763960000000-CreateItemPhotos';
import { RetiredTags1765000000000 } from './migrations/1765000000000-RetiredTags';
import { LostMode1765200000000 } from './migrations/1765200000000-LostMode';
import { Scans1765300000000 } from './migrations/1765300000000-Scans';
import { ItemPeople1765500000000 } from './migrations/1765500000000-ItemPeople';
import { RetiredTagsBatch1766200000000 } from './migrations/1766200000000-RetiredTagsBatch';
import { ITEMS_SCHEMA } from '../persisted-names';

export function itemsDatabase(config: ItemsConfig): DatabaseOptions {
  return {
    url: config.DATABASE_URL,
    schema: config.DATABASE_SCHEMA ?? ITEMS_SCHEMA,
    applicationName: 'items',
    migrations: [CreateItems1763856100000, AddItemVersion1763900000000, CreateTagBatches1763950000000, CreateItemPhotos1763960000000, RetiredTags1765000000000, LostMode1765200000000, Scans1765300000000, ItemPeople1765500000000, RetiredTagsBatch1766200000000],
  };
}
