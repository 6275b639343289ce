import { Module } from '@nestjs/common';
import { eventConsumerProviders } from '@homing/platform';
import { ItemsModule } from '../items/items.module';
import { PeopleModule } from '../people/people.module';
import { TagBatchesModule } from '../tag-batches/tag-batches.module';
import { UserErasureConsumer, UserErasureSecondPass } from './user-erasure.consumer';

/** What items erases when an account is erased (`identity.user.deleted.v1`). */
@Module({
  imports: [ItemsModule, TagBatchesModule, PeopleModule],
  providers: [...eventConsumerProviders(UserErasureConsumer, UserErasureSecondPass)],
})
export class ErasureModule {}
