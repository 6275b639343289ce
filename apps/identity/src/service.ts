import { runService } from '@homing/platform';
import { grantAdminCommand, revokeAdminCommand } from './accounts/admin-rights.command';
import { AppModule } from './app.module';
import { loadIdentityConfig, type IdentityConfig } from './config/identity.config';
import { identityDatabase } from './database/identity.database';
import { identityRetentionRules } from './retention/identity-retention';

export function main(): Promise<void> {
  return runService<IdentityConfig>({
    name: 'identity',
    loadConfig: () => loadIdentityConfig(),
    port: (config) => config.PORT,
    module: (config) => AppModule.forConfig(config),
    rpc: true,
    database: identityDatabase,
    retention: identityRetentionRules,
    commands: { 'grant-admin': grantAdminCommand, 'revoke-admin': revokeAdminCommand },
  });
}
