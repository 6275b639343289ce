import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@homing/platform';
import { IDENTITY_CONFIG, type IdentityConfig } from './config/identity.config';
import { identityDatabase } from './database/identity.database';
import { IdentityModule } from './identity.module';

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
        { module: IdentityConfigModule, global: true, providers: [{ provide: IDENTITY_CONFIG, useValue: config }], exports: [IDENTITY_CONFIG] },
        IdentityModule,
      ],
    };
  }
}

@Module({})
class IdentityConfigModule {}
