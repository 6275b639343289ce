import type { DatabaseOptions } from '@homing/platform';
import type { IdentityConfig } from '../config/identity.config';

/** WARNING: the schema name is where this service's data lives; renaming it loses the data. */
export const IDENTITY_SCHEMA = 'identity';

export function identityDatabase(config: IdentityConfig): DatabaseOptions {
  return {
    url: config.DATABASE_URL,
    schema: config.DATABASE_SCHEMA ?? IDENTITY_SCHEMA,
    applicationName: 'identity',
    // Users, sessions and codes arrive with the identity issues; the platform's outbox tables are already here.
    migrations: [],
  };
}
