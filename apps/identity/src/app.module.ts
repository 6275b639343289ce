import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule, retentionProviders } from '@homing/platform';
import type { IdentityConfig } from './config/identity.config';
import { identityDatabase } from './database/identity.database';
import { IdentityModule } from './identity.module';
import { identityRetentionRules } from './retention/identity-retention';

@Module({})
export class AppModule {
  static forConfig(config: IdentityConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forService({
          service: 'identity',
          config,
          database: identityDatabase(config),
          outbox: true,
          redisUrl: config.REDIS_URL,
        }),
        IdentityModule,
      ],
      providers: retentionProviders(identityRetentionRules),
    };
  }
}
