import { Controller } from '@nestjs/common';
import type { RpcRequest as Request, RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { ScansService } from './scans.service';

@Controller()
export class ScansRpcController {
  constructor(private readonly scans: ScansService) {}

  @RpcHandler('items.rpc.record-scan')
  record({ code, ...place }: Request<'items.rpc.record-scan'>): Promise<Response<'items.rpc.record-scan'>> {
    return this.scans.record(code, place);
  }

  @RpcHandler('items.rpc.list-scans')
  list({ code, ownerUserId }: Request<'items.rpc.list-scans'>): Promise<Response<'items.rpc.list-scans'>> {
    return this.scans.listOwned(code, ownerUserId);
  }

  @RpcHandler('items.rpc.get-scan')
  get({ scanId }: Request<'items.rpc.get-scan'>): Promise<Response<'items.rpc.get-scan'>> {
    return this.scans.get(scanId);
  }
}
