import { Module } from '@nestjs/common';
import { ExportRepository } from './export.repository';
import { ExportRpcController } from './export.rpc-controller';

/** The conversations of an owner's items for their data export (`GET /user/export`). */
@Module({
  controllers: [ExportRpcController],
  providers: [ExportRepository],
})
export class ExportModule {}
