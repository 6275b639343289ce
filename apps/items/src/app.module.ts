import { type DynamicModule, Module } from '@nestjs/common';
import { PlatformModule, retentionProviders } from '@homing/platform';
import { ClaimsModule } from './claims/claims.module';
import type { ItemsConfig } from './config/items.config';
import { itemsDatabase } from './database/items.database';
import { ErasureModule } from './erasure/erasure.module';
import { ExportModule } from './export/export.module';
import { HandoverModule } from './handover/handover.module';
import { PeopleModule } from './people/people.module';
import { ItemsModule } from './items/items.module';
import { PhotosModule } from './photos/photos.module';
import { itemsRetentionRules } from './items-retention';
import { ScansModule } from './scans/scans.module';
import { TagBatchesModule } from './tag-batches/tag-batches.module';

@Module({})
export class AppModule {
  static forConfig(config: ItemsConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forService({
          service: 'items',
          config,
          database: itemsDatabase(config),
          outbox: true,
        }),
        ItemsModule,
        ClaimsModule,
        TagBatchesModule,
        PhotosModule,
        ExportModule,
        ErasureModule,
        ScansModule,
        HandoverModule,
        PeopleModule,
      ],
      providers: retentionProviders(itemsRetentionRules),
    };
  }
}
