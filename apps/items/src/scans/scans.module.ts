import { Module } from '@nestjs/common';
import { ScansRepository } from './scans.repository';
import { ScansRpcController } from './scans.rpc-controller';
import { ScansService } from './scans.service';

@Module({
  controllers: [ScansRpcController],
  providers: [ScansRepository, ScansService],
})
export class ScansModule {}
