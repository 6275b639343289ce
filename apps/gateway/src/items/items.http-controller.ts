import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SkipThrottle } from '@nestjs/throttler';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { createItemBodySchema, parseTagCode, publicItemSchema, ResponseCode, type CreateItemBody, type PublicItem } from '@homing/contracts';
import { Public, RpcClient } from '@homing/platform';
import { CurrentUser, OptionalCurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiError } from '../http/http-error';
import { IDEMPOTENCY_KEY_API_HEADER, IdempotencyKey } from '../http/idempotency-key';
import { errorResponses, jsonSchemaOf } from '../http/openapi';
import { ZodBodyPipe } from '../http/zod-body.pipe';
import { PublicItemCache } from './public-item-cache';
import { limitUnknownCodeLookups, UNKNOWN_CODE_LIMIT, UnknownCodeLimiter } from './unknown-code-limit';

@ApiTags('items')
@Controller('items')
export class ItemsHttpController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly unknownCodes: UnknownCodeLimiter,
    private readonly publicItems: PublicItemCache,
  ) {}

  @Public()
  // The hottest path (a finder's scan) costs no Redis round trip; guessing codes is limited separately.
  @SkipThrottle()
  @Get(':code')
  @ApiOperation({
    summary: 'What a finder sees after scanning a tag',
    description: `Unknown and malformed codes are the same 404. After ${UNKNOWN_CODE_LIMIT.misses} unknown codes in an hour, a client address gets 429 for any code until the hour is over.`,
  })
  @ApiOkResponse({ schema: jsonSchemaOf(publicItemSchema) })
  @ApiResponse(errorResponses[404])
  @ApiResponse(errorResponses[429])
  @ApiBearerAuth()
  getByCode(
    @Param('code') input: string,
    @OptionalCurrentUser() viewer: AuthenticatedUser | null,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PublicItem> {
    return limitUnknownCodeLookups(this.unknownCodes, request.ip, reply, async () => {
      const code = parseTagCode(input);
      // Malformed codes never reach items: same answer as an unknown code, one hop saved.
      if (!code) throw new ApiError(404, ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
      // Repeated scans are answered from the gateway's memory, kept current by items' events (ItemEvents).
      return this.publicItems.get(code, viewer?.id ?? null, () => this.rpc.request('items.rpc.get-public', { code }));
    });
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an item (already claimed) for the calling user' })
  @ApiBody({ schema: jsonSchemaOf(createItemBodySchema) })
  @ApiResponse({ status: 201, schema: jsonSchemaOf(publicItemSchema) })
  @ApiResponse(errorResponses[400])
  @ApiResponse(errorResponses[401])
  @ApiResponse({ ...errorResponses[422], description: 'Validation error; or IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used for another request' })
  @ApiBearerAuth()
  @ApiHeader(IDEMPOTENCY_KEY_API_HEADER)
  create(
    @Body(new ZodBodyPipe(createItemBodySchema)) body: CreateItemBody,
    @CurrentUser() owner: AuthenticatedUser,
    @IdempotencyKey() idempotencyKey: string | undefined,
  ): Promise<PublicItem> {
    return this.rpc.request('items.rpc.create', { ...body, ownerUserId: owner.id, idempotencyKey });
  }
}
