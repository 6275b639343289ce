import type { DatabaseOptions } from '@homing/platform';
import type { IdentityConfig } from '../config/identity.config';
import { CreateIdentityTables1764000000000 } from './migrations/1764000000000-CreateIdentityTables';

/** WARNING: the schema name is where this service's data lives; renaming it loses the data. */
export const IDENTITY_SCHEMA = 'identity';

export function identityDatabase(config: Pick<IdentityConfig, 'DATABASE_URL' | 'DATABASE_SCHEMA'>): DatabaseOptions {
  return {
    url: config.DATABASE_URL,
    schema: config.DATABASE_SCHEMA ?? IDENTITY_SCHEMA,
    applicationName: 'identity',
    migrations: [CreateIdentityTables1764000000000],
  };
}
