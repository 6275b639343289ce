import { Controller, Get, Headers, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { photoUrlsSchema, type PhotoUrls } from '@homing/contracts';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiRoute, ApiTags } from '../http/api-route.decorator';
import { sendTagged } from '../http/etag';
import { readPhotoUpload } from './photo-upload';
import { PhotosService } from './photos.service';

@ApiTags('items')
@Controller()
export class PhotosHttpController {
  constructor(private readonly photos: PhotosService) {}

  @Post('images/upload')
  @ApiRoute({
    summary: "Upload the photo of one of the caller's items",
    description: 'multipart/form-data with a field `code` and a field `file` (JPEG, PNG or WebP, at most 5 MB). Stored as a 100 px thumbnail and a 400 px normal size, without metadata.',
    consumes: 'multipart/form-data',
    answer: photoUrlsSchema,
    errors: [404, 422],
  })
  async upload(@Req() request: FastifyRequest, @CurrentUser() owner: AuthenticatedUser): Promise<PhotoUrls> {
    const { code, file } = await readPhotoUpload(request);
    return this.photos.upload(owner.id, code, file);
  }

  @Get('items/:code/photo/:size')
  @ApiRoute({
    summary: "An item's photo (thumbnail or normal)",
    description: 'URLs come with the item (`photo`); the `v` they carry changes with every upload.',
    caller: 'anyone',
    produces: ['image/webp'],
    errors: [404],
  })
  async photo(@Param('code') code: string, @Param('size') size: string, @Query('v') version: unknown, @Headers('if-none-match') ifNoneMatch: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    sendTagged(reply, ifNoneMatch, await this.photos.photo(code, size, version));
  }
}
