import { type DynamicModule, Module, type Provider, type Type } from '@nestjs/common';
import { eventConsumerProviders, PlatformModule, READINESS_CHECKS } from '@homing/platform';
import { DeliveriesRepository } from './channels/deliveries.repository';
import { EmailProcessor } from './channels/email/email.processor';
import { EmailRenderer } from './channels/email/email-renderer';
import { MailTransport } from './channels/email/mail-transport';
import { MessageMailWindowsRepository } from './channels/email/message-mail-windows.repository';
import { PushProcessor } from './channels/push/push.processor';
import { PushSender } from './channels/push/push-sender';
import { NOTIFICATIONS_CONFIG, publicUrlOf, type NotificationsConfig } from './config/notifications.config';
import { LoginCodeMailConsumer } from './consumers/login-code-mail.consumer';
import { NewMessageMailConsumer } from './consumers/new-message-mail.consumer';
import { NewMessagePushConsumer } from './consumers/new-message-push.consumer';
import { PasswordResetMailConsumer } from './consumers/password-reset-mail.consumer';
import { TagActivatedMailConsumer } from './consumers/tag-activated-mail.consumer';
import { WelcomeMailConsumer } from './consumers/welcome-mail.consumer';
import { notificationsDatabase } from './database/notifications.database';
import { EmailQueue } from './jobs/email.queue';
import { PushQueue } from './jobs/push.queue';
import { QueueDepthMetrics } from './jobs/queue-depth.metrics';
import { PushSubscriptionsRepository } from './push-subscriptions/push-subscriptions.repository';
import { PushSubscriptionsRpcController } from './push-subscriptions/push-subscriptions.rpc-controller';
import { PushSubscriptionsService } from './push-subscriptions/push-subscriptions.service';
import { RedisDurabilityCheck } from './redis/redis-durability.check';

/**
 * Event consumers that decide who is told what and enqueue jobs, and the push subscription RPCs the gateway calls
 * (role `consumer` or `all`).
 */
function consumerProviders(): Provider[] {
  return [
    EmailQueue,
    PushQueue,
    MessageMailWindowsRepository,
    PushSubscriptionsService,
    ...eventConsumerProviders(
      LoginCodeMailConsumer,
      PasswordResetMailConsumer,
      WelcomeMailConsumer,
      TagActivatedMailConsumer,
      NewMessageMailConsumer,
      NewMessagePushConsumer,
    ),
  ];
}

/** Queue workers that send (role `worker` or `all`). */
function workerProviders(config: NotificationsConfig): Provider[] {
  return [
    { provide: EmailRenderer, useValue: new EmailRenderer(publicUrlOf(config)) },
    MailTransport,
    DeliveriesRepository,
    EmailProcessor,
    PushSender,
    PushProcessor,
  ];
}

@Module({})
export class AppModule {
  static forConfig(config: NotificationsConfig): DynamicModule {
    const role = config.NOTIFICATIONS_ROLE;
    const controllers: Type[] = role === 'worker' ? [] : [PushSubscriptionsRpcController];
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
      controllers,
      providers: [
        { provide: NOTIFICATIONS_CONFIG, useValue: config },
        RedisDurabilityCheck,
        { provide: READINESS_CHECKS, useFactory: (durability: RedisDurabilityCheck) => [durability], inject: [RedisDurabilityCheck] },
        // Both sides read subscriptions: consumers to fan out, workers to send.
        PushSubscriptionsRepository,
        QueueDepthMetrics,
        ...(role === 'worker' ? [] : consumerProviders()),
        ...(role === 'consumer' ? [] : workerProviders(config)),
      ],
    };
  }
}
