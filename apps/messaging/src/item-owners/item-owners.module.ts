import { Module } from '@nestjs/common';
import { eventConsumerProviders } from '@homing/platform';
import { ItemOwnersConsumer } from './item-owners.consumer';
import { ItemOwnersRepository } from './item-owners.repository';

@Module({
  providers: [ItemOwnersRepository, ...eventConsumerProviders(ItemOwnersConsumer)],
  exports: [ItemOwnersRepository],
})
export class ItemOwnersModule {}
