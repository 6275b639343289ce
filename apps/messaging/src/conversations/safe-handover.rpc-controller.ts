import { Controller } from '@nestjs/common';
import type { RpcRequest as Request, RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { SafeHandoverService } from './safe-handover.service';

@Controller()
export class SafeHandoverRpcController {
  constructor(private readonly handover: SafeHandoverService) {}

  @RpcHandler('messaging.rpc.conversation-state')
  state(request: Request<'messaging.rpc.conversation-state'>): Promise<Response<'messaging.rpc.conversation-state'>> {
    return this.handover.state(request);
  }

  @RpcHandler('messaging.rpc.contact-consent')
  consent(request: Request<'messaging.rpc.contact-consent'>): Promise<Response<'messaging.rpc.contact-consent'>> {
    return this.handover.consent(request);
  }

  @RpcHandler('messaging.rpc.handover-code')
  handoverCode({ code, ownerUserId }: Request<'messaging.rpc.handover-code'>): Promise<Response<'messaging.rpc.handover-code'>> {
    return this.handover.handoverCode(code, ownerUserId);
  }

  @RpcHandler('messaging.rpc.handover')
  handOver(request: Request<'messaging.rpc.handover'>): Promise<Response<'messaging.rpc.handover'>> {
    return this.handover.handover(request);
  }
}
