import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@homing/platform';
import type { GatewayConfig } from './config/gateway.config';
import { ItemsHttpController } from './items/items.http-controller';

@Module({})
export class AppModule {
  static forConfig(config: GatewayConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forService({
          service: 'gateway',
          config,
        }),
      ],
      controllers: [ItemsHttpController],
    };
  }
}
