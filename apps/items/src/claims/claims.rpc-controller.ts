import { Controller } from '@nestjs/common';
import type { RpcRequest as Request, RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { ClaimsService } from './claims.service';

@Controller()
export class ClaimsRpcController {
  constructor(private readonly claims: ClaimsService) {}

  @RpcHandler('items.rpc.claim')
  claim({ code, email, language }: Request<'items.rpc.claim'>): Promise<Response<'items.rpc.claim'>> {
    return this.claims.claim(code, email, language);
  }
}
