import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { PhotoUrls, RpcRequest, StoredPhoto } from '@homing/contracts';
import { PhotosService } from './photos.service';

@Controller()
export class PhotosRpcController {
  constructor(private readonly photos: PhotosService) {}

  @MessagePattern('items.rpc.set-photo')
  setPhoto(@Payload() request: RpcRequest<'items.rpc.set-photo'>): Promise<PhotoUrls> {
    return this.photos.setPhoto(request.code, request.ownerUserId, request);
  }

  @MessagePattern('items.rpc.get-photo')
  getPhoto(@Payload() request: RpcRequest<'items.rpc.get-photo'>): Promise<StoredPhoto> {
    return this.photos.getPhoto(request.code, request.size);
  }
}
