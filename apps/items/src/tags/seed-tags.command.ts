import { formatTagCode } from '@homing/contracts';
import { withDatabase, type ServiceCommand } from '@homing/platform';
import type { ItemsConfig } from '../config/items.config';
import { itemsDatabase } from '../database/items.database';
import { ItemsRepository } from '../items/items.repository';
import { mintTagCode } from './mint-tag-code';

/** `main.js seed-tags --count N`: mints N unclaimed tags for development and prints their codes, one per line. */
export const seedTagsCommand: ServiceCommand<ItemsConfig> = {
  describe: 'mint unclaimed tags for development (--count N, default 5) and print their codes',
  async run(config, args) {
    // A warning, not a refusal: staging and demo stacks run with NODE_ENV=production and still want a few tags.
    if (config.NODE_ENV === 'production') {
      process.stderr.write('items seed-tags: for development only; mint tags for real with the admin API (POST /api/v1/admin/tag-batches)\n');
    }
    const countArg = args.includes('--count') ? args[args.indexOf('--count') + 1] : '5';
    const count = Number(countArg);
    if (!Number.isInteger(count) || count < 1 || count > 1000) throw new Error('--count must be a whole number from 1 to 1000');
    const minted = await withDatabase(itemsDatabase(config), (database) =>
      new ItemsRepository(database).insertUnclaimed(Array.from({ length: count }, mintTagCode)),
    );
    process.stdout.write(`${minted.map(formatTagCode).join('\n')}\n`);
  },
};
