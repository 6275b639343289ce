import { Module } from '@nestjs/common';
import { eventConsumerProviders } from '@homing/platform';
import { DeliveriesRepository } from '../channels/deliveries.repository';
import { EmailQueueRepository } from '../jobs/email-queue.repository';
import { ItemPeopleModule } from '../item-people/item-people.module';
import { PushQueueRepository } from '../jobs/push-queue.repository';
import { PushSubscriptionsModule } from '../push-subscriptions/push-subscriptions.module';
import {
  FarewellMailConsumer,
  InvitationMailConsumer,
  LoginCodeMailConsumer,
  PasskeyAddedMailConsumer,
  PasskeyDeletedMailConsumer,
  PasswordResetMailConsumer,
  RelayAcknowledgementMailConsumer,
  ResumeLinkMailConsumer,
  TagActivatedMailConsumer,
  WelcomeMailConsumer,
} from './mail.consumer';
import { ConversationsErasedConsumer } from './conversations-erased.consumer';
import { FinderLeftConsumer } from './finder-left.consumer';
import { ItemPeopleConsumer } from './item-people.consumer';
import { MessageMailWindowsRepository } from './message-mail-windows.repository';
import { NewMessageConsumer } from './new-message.consumer';
import { ScanAlertConsumer } from './scan-alert.consumer';
import { ScanAlertWindowsRepository } from './scan-alert-windows.repository';
import { SessionsRevokedConsumer } from './sessions-revoked.consumer';
import { UserDeletedConsumer, UserDeletedSecondPass } from './user-deleted.consumer';

/** The event consumers: decide who is told what and enqueue the jobs (roles `consumer` and `all`). */
@Module({
  imports: [PushSubscriptionsModule, ItemPeopleModule],
  providers: [
    EmailQueueRepository,
    PushQueueRepository,
    MessageMailWindowsRepository,
    ScanAlertWindowsRepository,
    DeliveriesRepository,
    ...eventConsumerProviders(
      LoginCodeMailConsumer,
      PasswordResetMailConsumer,
      WelcomeMailConsumer,
      TagActivatedMailConsumer,
      NewMessageConsumer,
      RelayAcknowledgementMailConsumer,
      ResumeLinkMailConsumer,
      ScanAlertConsumer,
      FinderLeftConsumer,
      ConversationsErasedConsumer,
      FarewellMailConsumer,
      UserDeletedConsumer,
      UserDeletedSecondPass,
      ItemPeopleConsumer,
      InvitationMailConsumer,
      PasskeyAddedMailConsumer,
      PasskeyDeletedMailConsumer,
      SessionsRevokedConsumer,
    ),
  ],
})
export class ConsumersModule {}
