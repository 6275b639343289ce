import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@homing/platform';
import type { IdentityConfig } from './config/identity.config';
import { identityDatabase } from './database/identity.database';

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
        }),
      ],
    };
  }
}
