import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { eventConsumerProviders, PlatformModule, READINESS_CHECKS } from '@homing/platform';
import { EmailProcessor } from './channels/email/email.processor';
import { DeliveriesRepository } from './channels/email/deliveries.repository';
import { EmailRenderer } from './channels/email/email-renderer';
import { MailTransport } from './channels/email/mail-transport';
import { NOTIFICATIONS_CONFIG, publicUrlOf, type NotificationsConfig } from './config/notifications.config';
import { LoginCodeMailConsumer } from './consumers/login-code-mail.consumer';
import { PasswordResetMailConsumer } from './consumers/password-reset-mail.consumer';
import { TagActivatedMailConsumer } from './consumers/tag-activated-mail.consumer';
import { WelcomeMailConsumer } from './consumers/welcome-mail.consumer';
import { notificationsDatabase } from './database/notifications.database';
import { EmailQueue } from './jobs/email.queue';
import { RedisDurabilityCheck } from './redis/redis-durability.check';

/** Event consumers that decide who is told what and enqueue jobs (role `consumer` or `all`). */
function consumerProviders(): Provider[] {
  return [EmailQueue, ...eventConsumerProviders(LoginCodeMailConsumer, PasswordResetMailConsumer, WelcomeMailConsumer, TagActivatedMailConsumer)];
}

/** Queue workers that send (role `worker` or `all`). */
function workerProviders(config: NotificationsConfig): Provider[] {
  return [
    { provide: EmailRenderer, useValue: new EmailRenderer(publicUrlOf(config)) },
    MailTransport,
    DeliveriesRepository,
    EmailProcessor,
  ];
}

@Module({})
export class AppModule {
  static forConfig(config: NotificationsConfig): DynamicModule {
    const role = config.NOTIFICATIONS_ROLE;
    return {
      module: AppModule,
      imports: [
        PlatformModule.forService({
          service: 'notifications',
          config,
          database: notificationsDatabase(config),
          outbox: false,
          redisUrl: config.REDIS_URL,
        }),
      ],
      providers: [
        { provide: NOTIFICATIONS_CONFIG, useValue: config },
        RedisDurabilityCheck,
        { provide: READINESS_CHECKS, useFactory: (durability: RedisDurabilityCheck) => [durability], inject: [RedisDurabilityCheck] },
        ...(role === 'worker' ? [] : consumerProviders()),
        ...(role === 'consumer' ? [] : workerProviders(config)),
      ],
    };
  }
}
