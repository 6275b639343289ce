import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { ClaimResponse, RpcRequest } from '@homing/contracts';
import { ClaimsService } from './claims.service';

@Controller()
export class ClaimsRpcController {
  constructor(private readonly claims: ClaimsService) {}

  @MessagePattern('items.rpc.claim')
  claim(@Payload() request: RpcRequest<'items.rpc.claim'>): Promise<ClaimResponse> {
    return this.claims.claim(request.code, request.email, request.language);
  }
}
