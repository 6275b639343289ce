import { Controller } from '@nestjs/common';
import type { RpcRequest as Request, RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { ExportService } from './export.service';

@Controller()
export class ExportRpcController {
  constructor(private readonly exports: ExportService) {}

  @RpcHandler('identity.rpc.export-user')
  exportUser({ userId }: Request<'identity.rpc.export-user'>): Promise<Response<'identity.rpc.export-user'>> {
    return this.exports.exportUser(userId);
  }
}
