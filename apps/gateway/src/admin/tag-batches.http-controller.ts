import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  createTagBatchBodySchema,
  ResponseCode,
  TAG_BATCH_MAX_COUNT,
  tagBatchSchema,
  tagSheetQuerySchema,
  type CreateTagBatchBody,
  type TagBatch,
  type TagSheetQuery,
} from '@homing/contracts';
import { RpcClient } from '@homing/platform';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiError } from '../http/http-error';
import { errorResponses, jsonSchemaOf } from '../http/openapi';
import { ZodBodyPipe } from '../http/zod-body.pipe';

function requireAdmin(user: AuthenticatedUser): void {
  if (!user.isAdmin) throw new ApiError(403, ResponseCode.FORBIDDEN);
}

/** Admins mint tags in batches and print them. */
@ApiTags('admin')
@ApiBearerAuth()
@ApiResponse(errorResponses[401])
@ApiResponse({ ...errorResponses[403], description: 'Not an admin' })
@Controller('admin/tag-batches')
export class TagBatchesHttpController {
  constructor(private readonly rpc: RpcClient) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Mint a batch of unclaimed tags', description: `Up to ${TAG_BATCH_MAX_COUNT} tags a batch.` })
  @ApiBody({ schema: jsonSchemaOf(createTagBatchBodySchema) })
  @ApiResponse({ status: 201, schema: jsonSchemaOf(tagBatchSchema) })
  @ApiResponse(errorResponses[400])
  @ApiResponse(errorResponses[422])
  create(@Body(new ZodBodyPipe(createTagBatchBodySchema)) body: CreateTagBatchBody, @CurrentUser() admin: AuthenticatedUser): Promise<TagBatch> {
    requireAdmin(admin);
    // Ten thousand inserts take longer than a scan: a generous timeout.
    return this.rpc.request('items.rpc.create-tag-batch', { ...body, createdBy: admin.id }, { timeoutMs: 30_000 });
  }

  @Get(':id/sheet')
  @ApiOperation({ summary: 'One A4 page of the batch’s printable sheet (SVG): QR codes with their codes printed under them' })
  @ApiQuery({ name: 'page', required: false, schema: { type: 'integer', minimum: 1, default: 1 } })
  @ApiProduces('image/svg+xml')
  @ApiResponse({ status: 200, description: 'The page; X-Sheet-Pages tells how many there are' })
  @ApiResponse(errorResponses[404])
  @ApiResponse(errorResponses[422])
  async sheet(
    @Param('id') batchId: string,
    @Query(new ZodBodyPipe(tagSheetQuerySchema)) query: TagSheetQuery,
    @CurrentUser() admin: AuthenticatedUser,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    requireAdmin(admin);
    const sheet = await this.rpc.request('items.rpc.tag-batch-sheet', { batchId, page: query.page ?? 1 });
    void reply
      .status(200)
      .headers({
        'content-type': 'image/svg+xml; charset=utf-8',
        'content-disposition': `inline; filename="tag-batch-${batchId}-page-${sheet.page}.svg"`,
        'x-sheet-pages': String(sheet.pages),
      })
      .send(sheet.svg);
  }
}
