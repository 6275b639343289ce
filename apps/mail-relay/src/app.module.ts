import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule } from '@homing/platform';
import { SenderAuthenticator } from './authentication/sender-authenticator';
import type { MailRelayConfig } from './config/mail-relay.config';
import { MailRelayService } from './relay/mail-relay.service';
import { RelayLimits } from './relay/relay-limits';
import { RelayedMailsRepository } from './relay/relayed-mails.repository';
import { RelaySmtpServer } from './smtp/relay-smtp.server';

@Module({})
export class AppModule {
  static forConfig(config: MailRelayConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [PlatformModule.forService({ service: 'mail-relay', config, redisUrl: config.REDIS_URL })],
      providers: [RelayLimits, RelayedMailsRepository, SenderAuthenticator, MailRelayService, RelaySmtpServer],
    };
  }
}
