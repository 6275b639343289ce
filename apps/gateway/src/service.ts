import { runService } from '@homing/platform';
import { AppModule } from './app.module';
import { loadGatewayConfig, type GatewayConfig } from './config/gateway.config';
import { applyHttpContract, BODY_LIMIT_BYTES } from './http/http-contract';
import { setUpOpenApi } from './http/openapi';
import { WebAppFallback } from './web/web-app';

export function main(): Promise<void> {
  return runService<GatewayConfig>({
    name: 'gateway',
    loadConfig: () => loadGatewayConfig(),
    port: (config) => config.PORT,
    module: (config) => AppModule.forConfig(config),
    bodyLimit: BODY_LIMIT_BYTES,
    async configureApp(app, config) {
      const webApp = config.WEB_DIST ? await WebAppFallback.register(app, config.WEB_DIST) : undefined;
      await applyHttpContract(app, webApp);
      setUpOpenApi(app, config.PUBLIC_URL);
    },
  });
}
