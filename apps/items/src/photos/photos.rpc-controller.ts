import { Controller } from '@nestjs/common';
import type { RpcRequest as Request, RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { PhotosService } from './photos.service';

@Controller()
export class PhotosRpcController {
  constructor(private readonly photos: PhotosService) {}

  @RpcHandler('items.rpc.set-photo')
  setPhoto(request: Request<'items.rpc.set-photo'>): Promise<Response<'items.rpc.set-photo'>> {
    return this.photos.setPhoto(request.code, request.ownerUserId, request);
  }

  @RpcHandler('items.rpc.get-photo')
  getPhoto({ code, size }: Request<'items.rpc.get-photo'>): Promise<Response<'items.rpc.get-photo'>> {
    return this.photos.getPhoto(code, size);
  }
}
