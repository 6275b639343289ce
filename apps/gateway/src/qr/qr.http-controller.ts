import { Controller, Get, Headers, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formatTagCode, parseTagCode, QR_SIZE_DEFAULT_PX, QR_SIZE_MAX_PX, QR_SIZE_MIN_PX, qrQuerySchema, ResponseCode, type QrQuery } from '@homing/contracts';
import { Public, RpcClient } from '@homing/platform';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiError } from '../http/http-error';
import { errorResponses } from '../http/openapi';
import { ZodBodyPipe } from '../http/zod-body.pipe';
import { PublicItemCache } from '../items/public-item-cache';
import { limitUnknownCodeLookups, UnknownCodeLimiter } from '../items/unknown-code-limit';
import { matchesEtag } from '../http/etag';
import { QrImages, type QrImage } from './qr-images';

// A week: the image of a code never changes while PUBLIC_URL stays, but not `immutable`: a deleted tag's image should
// go the way of the tag on the next reload, and a move to another PUBLIC_URL must reach browsers. Revalidating costs
// one 304 (ETag).
const PUBLIC_CACHE = 'public, max-age=604800';
// The download is an owner's: browsers may keep it, shared caches may not.
const PRIVATE_CACHE = 'private, max-age=604800';

// Large enough to print sharply on a tag or a sticker.
const QR_SIZE_DOWNLOAD_DEFAULT_PX = 1024;

const SIZE_QUERY = { name: 'sizeInPx', required: false, schema: { type: 'integer' as const, minimum: QR_SIZE_MIN_PX, maximum: QR_SIZE_MAX_PX, default: QR_SIZE_DEFAULT_PX } };

/** QR images of tags. The gateway renders them, after items confirms the code exists (no images of made-up codes). */
@ApiTags('qr')
@Controller()
export class QrHttpController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly images: QrImages,
    private readonly unknownCodes: UnknownCodeLimiter,
    private readonly publicItems: PublicItemCache,
  ) {}

  /** Outside `/api/v1` (the spec's website path); excluded from the prefix in http-contract.ts. */
  @Public()
  @Get('qr/:code')
  @ApiOperation({ summary: 'The QR image of a tag as SVG (or, with b64=1, the SVG as base64 text)', description: 'Encodes PUBLIC_URL/found/{code}. Unknown codes: 404.' })
  @ApiQuery(SIZE_QUERY)
  @ApiQuery({ name: 'b64', required: false, enum: ['0', '1'] })
  @ApiProduces('image/svg+xml', 'text/plain')
  @ApiResponse({ status: 200, description: 'The image; 304 when If-None-Match holds its ETag' })
  @ApiResponse(errorResponses[404])
  @ApiResponse(errorResponses[422])
  @ApiResponse(errorResponses[429])
  async qr(
    @Param('code') input: string,
    @Query(new ZodBodyPipe(qrQuerySchema)) query: QrQuery,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    // A QR image tells whether a code exists as well as a scan does: the same limit on guessing.
    const code = await limitUnknownCodeLookups(this.unknownCodes, request.ip, reply, async () => {
      const parsed = parseTagCode(input);
      if (!parsed) throw new ApiError(404, ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
      // From the scan cache when the tag was scanned (or its image asked for) lately: no NATS hop.
      await this.publicItems.get(parsed, null, () => this.rpc.request('items.rpc.get-public', { code: parsed }));
      return parsed;
    });
    const base64 = query.b64 === '1';
    const image = await this.images.render(code, base64 ? 'svg-base64' : 'svg', query.sizeInPx ?? QR_SIZE_DEFAULT_PX);
    send(reply, image, ifNoneMatch, { 'cache-control': PUBLIC_CACHE, 'content-type': base64 ? 'text/plain; charset=utf-8' : 'image/svg+xml; charset=utf-8' });
  }

  @Get('items/:code/qr/download')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'The QR image of one of the caller’s tags, as a PNG file to print', description: 'Another person’s item is the same 404 as a missing one.' })
  @ApiQuery({ ...SIZE_QUERY, schema: { ...SIZE_QUERY.schema, default: QR_SIZE_DOWNLOAD_DEFAULT_PX } })
  @ApiProduces('image/png')
  @ApiResponse({ status: 200, description: 'A PNG attachment; 304 when If-None-Match holds its ETag' })
  @ApiResponse(errorResponses[401])
  @ApiResponse(errorResponses[404])
  @ApiResponse(errorResponses[422])
  async download(
    @Param('code') input: string,
    @Query(new ZodBodyPipe(qrQuerySchema.omit({ b64: true }))) query: Omit<QrQuery, 'b64'>,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @CurrentUser() owner: AuthenticatedUser,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const item = await this.rpc.request('items.rpc.get-owned', { code: input, ownerUserId: owner.id });
    const code = parseTagCode(item.code) as string;
    const image = await this.images.render(code, 'png', query.sizeInPx ?? QR_SIZE_DOWNLOAD_DEFAULT_PX);
    send(reply, image, ifNoneMatch, {
      'cache-control': PRIVATE_CACHE,
      'content-type': 'image/png',
      'content-disposition': `attachment; filename="homing-${formatTagCode(code)}.png"`,
    });
  }
}

function send(reply: FastifyReply, image: QrImage, ifNoneMatch: string | undefined, headers: Record<string, string>): void {
  void reply.headers({ ...headers, etag: image.etag });
  if (ifNoneMatch !== undefined && matchesEtag(ifNoneMatch, image.etag)) {
    void reply.status(304).send();
    return;
  }
  void reply.status(200).send(image.body);
}
