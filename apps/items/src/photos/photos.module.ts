import { Module } from '@nestjs/common';
import { PHOTO_STORAGE } from './photo-storage';
import { PhotosRepository } from './photos.repository';
import { PhotosRpcController } from './photos.rpc-controller';
import { PhotosService } from './photos.service';
import { PostgresPhotoStorage } from './postgres-photo-storage';

@Module({
  controllers: [PhotosRpcController],
  providers: [PhotosRepository, PhotosService, { provide: PHOTO_STORAGE, useClass: PostgresPhotoStorage }],
})
export class PhotosModule {}
