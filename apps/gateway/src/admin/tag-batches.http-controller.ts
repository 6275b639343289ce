import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import {
  createTagBatchBodySchema,
  TAG_BATCH_MAX_COUNT,
  tagBatchListSchema,
  tagBatchSchema,
  tagBatchSummarySchema,
  tagSheetQuerySchema,
  type CreateTagBatchBody,
  type TagBatch,
  type TagBatchList,
  type TagBatchSummary,
  type TagSheetQuery,
} from '@homing/contracts';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiRoute, ApiTags } from '../http/api-route.decorator';
import { IdempotencyKey } from '../http/idempotency-key';
import { ZodBodyPipe } from '../http/zod-body.pipe';
import { PDF_RENDERS_AT_ONCE } from './pdf-renders';
import { TagBatchesService, type TagBatchFile, type TagSheetPage } from './tag-batches.service';

/** Admins mint tags in batches and print them: every route is `caller: 'admin'`, refused to anyone else by the auth guard. */
@ApiTags('admin')
@Controller('admin/tag-batches')
export class TagBatchesHttpController {
  constructor(private readonly tagBatches: TagBatchesService) {}

  @Post()
  @ApiRoute({
    caller: 'admin',
    summary: 'Mint a batch of unclaimed tags',
    description:
      `Up to ${TAG_BATCH_MAX_COUNT} tags a batch. Minting thousands takes a while: a client that retries (after a 504, ` +
      'say) sends the same Idempotency-Key with the same body and gets the first batch, 201 with the same body, ' +
      'never a second one, even while the first is still being minted (the retry waits for it). Keys are per admin.',
    status: 201,
    body: createTagBatchBodySchema,
    answer: tagBatchSchema,
    errors: [400, 422],
    idempotent: true,
  })
  create(
    @Body(new ZodBodyPipe(createTagBatchBodySchema)) body: CreateTagBatchBody,
    @CurrentUser() admin: AuthenticatedUser,
    @IdempotencyKey() idempotencyKey: string | undefined,
  ): Promise<TagBatch> {
    return this.tagBatches.create(admin, body, idempotencyKey);
  }

  @Get()
  @ApiRoute({ caller: 'admin', summary: 'Every tag batch, newest first, with how many of its tags are activated and who minted it', answer: tagBatchListSchema })
  list(@CurrentUser() admin: AuthenticatedUser): Promise<TagBatchList> {
    return this.tagBatches.list(admin);
  }

  @Get(':id')
  @ApiRoute({ caller: 'admin', summary: 'One tag batch with how many of its tags are activated and who minted it', answer: tagBatchSummarySchema, errors: [404] })
  get(@Param('id') batchId: string, @CurrentUser() admin: AuthenticatedUser): Promise<TagBatchSummary> {
    return this.tagBatches.get(admin, batchId);
  }

  @Get(':id/sheet.pdf')
  @ApiRoute({
    caller: 'admin',
    summary: 'The batch’s printable sheet as one PDF: A4 pages of QR codes with their codes under them and crop marks',
    description:
      `Each gateway draws at most ${PDF_RENDERS_AT_ONCE} sheets at once (a download holds its place until its file ends ` +
      'or its client goes away); another download meanwhile is refused at once, 503 SERVICE_BUSY with Retry-After.',
    produces: ['application/pdf'],
    answer: { description: 'The PDF, streamed as an attachment' },
    errors: [404],
  })
  async pdf(@Param('id') batchId: string, @CurrentUser() admin: AuthenticatedUser, @Res() reply: FastifyReply): Promise<void> {
    sendFile(reply, 'application/pdf', await this.tagBatches.pdf(admin, batchId, reply));
  }

  @Get(':id/codes.csv')
  @ApiRoute({
    caller: 'admin',
    summary: 'The batch’s codes as CSV: code, finder_url (what its QR code opens), qr_url',
    produces: ['text/csv'],
    answer: { description: 'The CSV, streamed as an attachment' },
    errors: [404],
  })
  async csv(@Param('id') batchId: string, @CurrentUser() admin: AuthenticatedUser, @Res() reply: FastifyReply): Promise<void> {
    sendFile(reply, 'text/csv; charset=utf-8', await this.tagBatches.csv(admin, batchId));
  }

  @Get(':id/sheet')
  @ApiRoute({
    caller: 'admin',
    summary: 'One A4 page of the batch’s printable sheet (SVG): QR codes with their codes printed under them',
    query: [{ name: 'page', required: false, schema: { type: 'integer', minimum: 1, default: 1 } }],
    produces: ['image/svg+xml'],
    answer: { description: 'The page; X-Sheet-Pages tells how many there are' },
    errors: [404, 422],
  })
  async sheet(@Param('id') batchId: string, @Query(new ZodBodyPipe(tagSheetQuerySchema)) query: TagSheetQuery, @CurrentUser() admin: AuthenticatedUser, @Res() reply: FastifyReply): Promise<void> {
    sendSheet(reply, batchId, await this.tagBatches.sheet(admin, batchId, query.page));
  }
}

function sendSheet(reply: FastifyReply, batchId: string, sheet: TagSheetPage): void {
  void reply
    .status(200)
    .headers({
      'content-type': 'image/svg+xml; charset=utf-8',
      'content-disposition': `inline; filename="tag-batch-${batchId}-page-${sheet.page}.svg"`,
      'x-sheet-pages': String(sheet.pages),
    })
    .send(sheet.svg);
}

function sendFile(reply: FastifyReply, contentType: string, file: TagBatchFile): void {
  void reply
    .status(200)
    .headers({ 'content-type': contentType, 'content-disposition': `attachment; filename="${file.filename}"` })
    .send(file.body);
}
