import type { DatabaseOptions } from '@homing/platform';
import type { IdentityConfig } from '../config/identity.config';
import { CreateIdentityTables1764000000000 } from './migrations/1764000000000-CreateIdentityTables';
import { RetentionIndexes1764900000000 } from './migrations/1764900000000-RetentionIndexes';
import { Passkeys1765600000000 } from './migrations/1765600000000-Passkeys';
import { SessionsPasskey1766300000000 } from './migrations/1766300000000-SessionsPasskey';
import { IDENTITY_SCHEMA } from '../persisted-names';

export function identityDatabase(config: Pick<IdentityConfig, 'DATABASE_URL' | 'DATABASE_SCHEMA'>): DatabaseOptions {
  return {
    url: config.DATABASE_URL,
    schema: config.DATABASE_SCHEMA ?? IDENTITY_SCHEMA,
    applicationName: 'identity',
    migrations: [CreateIdentityTables1764000000000, RetentionIndexes1764900000000, Passkeys1765600000000, SessionsPasskey1766300000000],
  };
}
