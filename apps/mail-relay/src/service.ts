import { runService } from '@homing/platform';
import { AppModule } from './app.module';
import { loadMailRelayConfig, type MailRelayConfig } from './config/mail-relay.config';

export function main(): Promise<void> {
  return runService<MailRelayConfig>({
    name: 'mail-relay',
    loadConfig: () => loadMailRelayConfig(),
    port: (config) => config.PORT,
    module: (config) => AppModule.forConfig(config),
  });
}
