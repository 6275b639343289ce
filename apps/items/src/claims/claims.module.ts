import { Module } from '@nestjs/common';
import { ClaimsRepository } from './claims.repository';
import { ClaimsRpcController } from './claims.rpc-controller';
import { ClaimsService } from './claims.service';

@Module({
  controllers: [ClaimsRpcController],
  providers: [ClaimsRepository, ClaimsService],
})
export class ClaimsModule {}
