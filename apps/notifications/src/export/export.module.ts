import { Module } from '@nestjs/common';
import { ExportRepository } from './export.repository';
import { ExportRpcController } from './export.rpc-controller';

/** A user's push subscriptions and deliveries for their data export (roles `consumer` and `all`, like the push RPCs). */
@Module({
  controllers: [ExportRpcController],
  providers: [ExportRepository],
})
export class ExportModule {}
