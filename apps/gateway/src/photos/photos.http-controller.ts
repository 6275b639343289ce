import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiConsumes, ApiOkResponse, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { photoSizeSchema, photoUrlsSchema, ResponseCode, type PhotoUrls } from '@homing/contracts';
import { Public, RpcClient } from '@homing/platform';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiError } from '../http/http-error';
import { matchesEtag } from '../http/etag';
import { errorResponses, jsonSchemaOf } from '../http/openapi';
import { PublicItemCache } from '../items/public-item-cache';
import { ACCEPTED_IMAGE_TYPES, photoRenditionsOf, UnusableImageError } from './photo-renditions';

/** An item's photo: uploaded by its owner, shown to whoever scans the tag. */
@ApiTags('items')
@Controller()
export class PhotosHttpController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly publicItems: PublicItemCache,
  ) {}

  @Post('images/upload')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiConsumes('multipart/form-data')
  @ApiOperation({
    summary: "Upload the photo of one of the caller's items",
    description: 'multipart/form-data with a field `code` and a field `file` (JPEG, PNG or WebP, at most 5 MB). Stored as a 100 px thumbnail and a 400 px normal size, without metadata.',
  })
  @ApiOkResponse({ schema: jsonSchemaOf(photoUrlsSchema) })
  @ApiResponse(errorResponses[401])
  @ApiResponse(errorResponses[404])
  @ApiResponse(errorResponses[422])
  async upload(@Req() request: FastifyRequest, @CurrentUser() owner: AuthenticatedUser): Promise<PhotoUrls> {
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
    let renditions;
    try {
      renditions = await photoRenditionsOf(file);
    } catch (error) {
      if (error instanceof UnusableImageError) throw new ApiError(422, ResponseCode.VALIDATION_ERROR, error.message, { file: 'invalid' });
      throw error;
    }
    return this.publicItems.changing(
      code,
      this.rpc.request('items.rpc.set-photo', {
        code,
        ownerUserId: owner.id,
        contentType: 'image/webp',
        thumbnail: renditions.thumbnail.toString('base64'),
        normal: renditions.normal.toString('base64'),
      }),
    );
  }

  @Public()
  @Get('items/:code/photo/:size')
  @ApiProduces('image/webp')
  @ApiOperation({ summary: "An item's photo (thumbnail or normal)", description: 'URLs come with the item (`photo`); the `v` they carry changes with every upload.' })
  @ApiResponse(errorResponses[404])
  async photo(@Param('code') code: string, @Param('size') size: string, @Query('v') version: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<Buffer | undefined> {
    const parsedSize = photoSizeSchema.safeParse(size);
    if (!parsedSize.success) throw new ApiError(404, ResponseCode.NOT_FOUND, 'No photo here.');
    const photo = await this.rpc.request('items.rpc.get-photo', { code, size: parsedSize.data });
    const content = Buffer.from(photo.base64, 'base64');
    // A version's rendition never changes: the version and size name it.
    const etag = `"${photo.version}-${parsedSize.data}"`;
    // The versioned URL never changes its image: cache it for good. Without the current version, only briefly.
    const cacheControl = String(version) === String(photo.version) ? 'public, max-age=31536000, immutable' : 'public, max-age=60';
    void reply.header('content-type', photo.contentType).header('cache-control', cacheControl).header('etag', etag);
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch !== undefined && matchesEtag(ifNoneMatch, etag)) {
      void reply.status(304);
      return undefined;
    }
    return content;
  }
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
