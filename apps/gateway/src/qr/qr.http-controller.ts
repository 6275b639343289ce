import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { QR_SIZE_DEFAULT_PX, QR_SIZE_MAX_PX, QR_SIZE_MIN_PX, qrQuerySchema, type QrQuery } from '@homing/contracts';
import { ApiRoute, ApiTags } from '../http/api-route.decorator';
import { sendTagged } from '../http/etag';
import { ZodBodyPipe } from '../http/zod-body.pipe';
import { QR_SIZE_DOWNLOAD_DEFAULT_PX, QrService } from './qr.service';

const sizeQuery = (defaultPx: number) => ({ name: 'sizeInPx', required: false, schema: { type: 'integer' as const, minimum: QR_SIZE_MIN_PX, maximum: QR_SIZE_MAX_PX, default: defaultPx } });

@ApiTags('qr')
@Controller()
export class QrHttpController {
  constructor(private readonly qrImages: QrService) {}

  /** Outside `/api/v1` (the spec's website path); excluded from the prefix in http-contract.ts. */
  @Get('qr/:code')
  @ApiRoute({
    summary: 'The QR image of a tag as SVG (or, with b64=1, the SVG as base64 text)',
    description: 'Encodes PUBLIC_URL/found/{code}. Unknown codes: 404.',
    caller: 'anyone',
    query: [sizeQuery(QR_SIZE_DEFAULT_PX), { name: 'b64', required: false, enum: ['0', '1'] }],
    produces: ['image/svg+xml', 'text/plain'],
    answer: { description: 'The image; 304 when If-None-Match holds its ETag' },
    errors: [404, 422, 429],
  })
  // The route's contract. Requests are answered by QrPlainRoute (servePlainHandlers), which makes the same call
  // outside Nest's pipeline, with its limit in memory; this body is what that handler does, kept for a server without it.
  async qr(
    @Param('code') code: string,
    @Query(new ZodBodyPipe(qrQuerySchema)) query: QrQuery,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    sendTagged(reply, ifNoneMatch, await this.qrImages.publicImage(code, query.sizeInPx, query.b64 === '1'));
  }

  @Get('items/:code/qr/download')
  @ApiRoute({
    summary: 'The QR image of a tag as a PNG file to print',
    description:
      'The same access rule as GET /qr/{code}: anyone holding a code that exists (the image holds nothing but PUBLIC_URL/found/{code}, ' +
      'which the code alone gives); unknown codes: 404, counted against the unknown-code limit like a scan.',
    caller: 'anyone',
    query: [sizeQuery(QR_SIZE_DOWNLOAD_DEFAULT_PX)],
    produces: ['image/png'],
    answer: { description: 'A PNG attachment; 304 when If-None-Match holds its ETag' },
    errors: [404, 422, 429],
  })
  async download(
    @Param('code') code: string,
    @Query(new ZodBodyPipe(qrQuerySchema.omit({ b64: true }))) query: Omit<QrQuery, 'b64'>,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    sendTagged(reply, ifNoneMatch, await this.qrImages.download(code, query.sizeInPx));
  }
}
