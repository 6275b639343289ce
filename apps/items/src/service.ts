import { runService } from '@homing/platform';
import { AppModule } from './app.module';
import { loadItemsConfig, type ItemsConfig } from './config/items.config';
import { itemsDatabase } from './database/items.database';
import { itemsRetentionRules } from './items-retention';
import { printSheetCommand } from './tag-batches/print-sheet.command';
import { seedTagsCommand } from './tags/seed-tags.command';

export function main(): Promise<void> {
  return runService<ItemsConfig>({
    name: 'items',
    loadConfig: () => loadItemsConfig(),
    port: (config) => config.PORT,
    module: (config) => AppModule.forConfig(config),
    rpc: true,
    database: itemsDatabase,
    retention: itemsRetentionRules,
    commands: { 'seed-tags': seedTagsCommand, 'print-sheet': printSheetCommand },
  });
}
