import { mkdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { IdempotencyKeys, withDatabase, type ServiceCommand } from '@homing/platform';
import type { ItemsConfig } from '../config/items.config';
import { itemsDatabase } from '../database/items.database';
import { TagBatchesRepository } from './tag-batches.repository';
import { TagBatchesService } from './tag-batches.service';

function option(args: string[], name: string): string | undefined {
  return args.includes(name) ? args[args.indexOf(name) + 1] : undefined;
}

/**
 * `main.js print-sheet --batch <id> [--out <dir>]`: writes the batch's printable sheet as A4 SVG pages
 * (`<dir>/tag-batch-<id>-page-001.svg`, …) and prints their paths, one per line.
 */
export const printSheetCommand: ServiceCommand<ItemsConfig> = {
  describe: 'write the printable A4 sheet of a tag batch as SVG pages (--batch <id> [--out <dir>], default the current directory)',
  async run(config, args) {
    const batchId = option(args, '--batch');
    if (!batchId) throw new Error('--batch <id> is required');
    const out = resolve(option(args, '--out') ?? '.');
    await withDatabase(itemsDatabase(config), async (database) => {
      const batches = new TagBatchesService(new TagBatchesRepository(database), new IdempotencyKeys(database), config);
      await mkdir(out, { recursive: true });
      for (let page = 1, pages = 1; page <= pages; page += 1) {
        const sheet = await batches.sheet(batchId, page);
        pages = sheet.pages;
        const file = resolve(out, `tag-batch-${batchId}-page-${String(page).padStart(3, '0')}.svg`);
        await writeFile(file, sheet.svg);
        process.stdout.write(`${file}\n`);
      }
    });
  },
};
