import { Module } from '@nestjs/common';
import { eventConsumerProviders } from '@homing/platform';
import { ItemsModule } from '../items/items.module';
import { HandedOverConsumer } from './handed-over.consumer';

/** What items does when a case is closed by a hand-over (messaging's event). */
@Module({
  imports: [ItemsModule],
  providers: [...eventConsumerProviders(HandedOverConsumer)],
})
export class HandoverModule {}
