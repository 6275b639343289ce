import { formatTagCode } from '@homing/contracts';
import { dataSourceOptions, type ServiceCommand } from '@homing/platform';
import { DataSource } from 'typeorm';
import type { ItemsConfig } from '../config/items.config';
import { itemsDatabase } from '../database/items.database';
import { ItemsRepository } from '../items/items.repository';
import { mintTagCode } from './mint-tag-code';

/** `main.js seed-tags --count N`: mints N unclaimed tags for development and prints their codes, one per line. */
export const seedTagsCommand: ServiceCommand<ItemsConfig> = {
  describe: 'mint unclaimed tags for development (--count N, default 5) and print their codes',
  async run(config, args) {
    const countArg = args.includes('--count') ? args[args.indexOf('--count') + 1] : '5';
    const count = Number(countArg);
    if (!Number.isInteger(count) || count < 1 || count > 1000) throw new Error('--count must be a whole number from 1 to 1000');
    const dataSource = new DataSource(dataSourceOptions(itemsDatabase(config)));
    await dataSource.initialize();
    try {
      const minted = await new ItemsRepository(dataSource).insertUnclaimed(Array.from({ length: count }, mintTagCode));
      process.stdout.write(`${minted.map(formatTagCode).join('\n')}\n`);
    } finally {
      await dataSource.destroy();
    }
  },
};
