import { runService } from '@homing/platform';
import { AppModule } from './app.module';
import { loadItemsConfig, type ItemsConfig } from './config/items.config';
import { itemsDatabase } from './database/items.database';
import { itemsRetentionRules } from './items-retention';
import { ItemsService } from './items/items.service';
import { printSheetCommand } from './tag-batches/print-sheet.command';
import { seedTagsCommand } from './tags/seed-tags.command';

export function main(): Promise<void> {
  return runService<ItemsConfig>({
    name: 'items',
    loadConfig: () => loadItemsConfig(),
    port: (config) => config.PORT,
    module: (config) => AppModule.forConfig(config),
    rpc: true,
    // The scan's lookups (B1), answered outside Nest's per-request pipeline.
    plainRpcHandlers: (app) => {
      const items = app.get(ItemsService);
      return {
        'items.rpc.get-public': ({ code }) => items.getPublic(code),
        'items.rpc.get-public-many': ({ codes }) => items.getPublicMany(codes),
      };
    },
    database: itemsDatabase,
    retention: itemsRetentionRules,
    commands: { 'seed-tags': seedTagsCommand, 'print-sheet': printSheetCommand },
  });
}
