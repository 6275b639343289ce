import { Module } from '@nestjs/common';
import { SERVICE_CONFIG } from '@homing/platform';
import { publicUrlOf, type NotificationsConfig } from '../../config/notifications.config';
import { ItemRecipientsRepository } from '../../item-people/item-recipients.repository';
import { ItemRecipientsService } from '../../item-people/item-recipients.service';
import { DeliveriesRepository } from '../deliveries.repository';
import { DeliveryReceipts } from '../delivery-receipts';
import { EmailProcessor } from './email.processor';
import { EmailRenderer } from './email-renderer';
import { SmtpRepository } from './smtp.repository';

/**
 * Sends the `email` queue's jobs (roles `worker` and `all`). It reads the items' people and settings itself (not
 * ItemPeopleModule, whose settings RPCs a worker does not answer): a delayed e-mail goes only to someone still told.
 */
@Module({
  providers: [
    ItemRecipientsRepository,
    ItemRecipientsService,
    { provide: EmailRenderer, useFactory: (config: NotificationsConfig) => new EmailRenderer(publicUrlOf(config)), inject: [SERVICE_CONFIG] },
    SmtpRepository,
    DeliveriesRepository,
    DeliveryReceipts,
    EmailProcessor,
  ],
})
export class EmailModule {}
