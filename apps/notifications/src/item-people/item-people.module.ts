import { Module } from '@nestjs/common';
import { ItemPeopleRepository } from './item-people.repository';
import { ItemRecipientsRepository } from './item-recipients.repository';
import { ItemRecipientsService } from './item-recipients.service';
import { ItemSettingsRepository } from './item-settings.repository';
import { ItemSettingsRpcController } from './item-settings.rpc-controller';

/**
 * The people of each item (a projection of items' events) and how each is told of it: the settings RPCs the gateway
 * calls, and the recipients the consumers tell (roles `consumer` and `all`).
 */
@Module({
  controllers: [ItemSettingsRpcController],
  providers: [ItemPeopleRepository, ItemSettingsRepository, ItemRecipientsRepository, ItemRecipientsService],
  exports: [ItemPeopleRepository, ItemSettingsRepository, ItemRecipientsService],
})
export class ItemPeopleModule {}
