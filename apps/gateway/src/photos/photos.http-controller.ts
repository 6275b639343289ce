import { Controller, Get, Headers, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { photoUrlsSchema, ResponseCode, type PhotoUrls } from '@homing/contracts';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiRoute, ApiTags } from '../http/api-route.decorator';
import { sendTagged } from '../http/etag';
import { ApiError } from '../http/http-error';
import { ACCEPTED_IMAGE_TYPES } from './photo-renditions';
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

/** The multipart fields `code` and `file` (JPEG, PNG or WebP); 415 for another body, 413 past 5 MB, else 422 or 400. */
async function readPhotoUpload(request: FastifyRequest): Promise<{ code: string; file: Buffer }> {
  if (!request.isMultipart()) throw new ApiError(415, ResponseCode.UNSUPPORTED_MEDIA_TYPE, 'Send the photo as multipart/form-data with the fields code and file.');
  let code: string | undefined;
  let file: Buffer | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        if (part.fieldname === 'code' && typeof part.value === 'string') code = part.value;
        continue;
      }
      if (part.fieldname !== 'file' || !ACCEPTED_IMAGE_TYPES.has(part.mimetype)) {
        part.file.resume();
        throw new ApiError(422, ResponseCode.VALIDATION_ERROR, 'Send a JPEG, PNG or WebP photo as the field file.', { file: 'invalid' });
      }
      // Over 5 MB this throws before reading further: 413.
      file = await part.toBuffer();
    }
  } catch (error) {
    throw malformedMultipartAsHttpError(error);
  }
  if (!code || !file) throw new ApiError(422, ResponseCode.VALIDATION_ERROR, undefined, { ...(code ? {} : { code: 'required' }), ...(file ? {} : { file: 'required' }) });
  return { code, file };
}

/**
 * Our own answers and @fastify/multipart's limits (413, with a status) pass through; anything else thrown while
 * reading the parts is busboy finding the body malformed (a bad boundary, a cut-off part): the client's fault, 400.
 */
function malformedMultipartAsHttpError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  const status = (error as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return error;
  return new ApiError(400, ResponseCode.MALFORMED_REQUEST, 'The multipart/form-data body is malformed.');
}
