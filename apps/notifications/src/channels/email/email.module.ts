import { Module } from '@nestjs/common';
import { SERVICE_CONFIG } from '@homing/platform';
import { publicUrlOf, type NotificationsConfig } from '../../config/notifications.config';
import { DeliveriesRepository } from '../deliveries.repository';
import { DeliveryReceipts } from '../delivery-receipts';
import { EmailProcessor } from './email.processor';
import { EmailRenderer } from './email-renderer';
import { SmtpRepository } from './smtp.repository';

/** Sends the `email` queue's jobs (roles `worker` and `all`). */
@Module({
  providers: [
    { provide: EmailRenderer, useFactory: (config: NotificationsConfig) => new EmailRenderer(publicUrlOf(config)), inject: [SERVICE_CONFIG] },
    SmtpRepository,
    DeliveriesRepository,
    DeliveryReceipts,
    EmailProcessor,
  ],
})
export class EmailModule {}
