import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { createItemBodySchema, parseTagCode, publicItemSchema, ResponseCode, type CreateItemBody, type PublicItem } from '@homing/contracts';
import { RpcClient } from '@homing/platform';
import { OptionalUserId, RequiredUserId, USER_ID_HEADER } from '../auth/current-user';
import { ApiError } from '../http/http-error';
import { IDEMPOTENCY_KEY_API_HEADER, IdempotencyKey } from '../http/idempotency-key';
import { errorResponses, jsonSchemaOf } from '../http/openapi';
import { ZodBodyPipe } from '../http/zod-body.pipe';

@ApiTags('items')
@Controller('items')
export class ItemsHttpController {
  constructor(private readonly rpc: RpcClient) {}

  @Get(':code')
  @ApiOperation({ summary: 'What a finder sees after scanning a tag', description: 'Unknown and malformed codes are the same 404.' })
  @ApiOkResponse({ schema: jsonSchemaOf(publicItemSchema) })
  @ApiResponse(errorResponses[404])
  @ApiHeader({ name: USER_ID_HEADER, required: false, description: 'Temporary: the viewing user, until bearer tokens land.' })
  getByCode(@Param('code') input: string, @OptionalUserId() viewerUserId: string | null): Promise<PublicItem> {
    const code = parseTagCode(input);
    // Malformed codes never reach items: same answer as an unknown code, one hop saved.
    if (!code) throw new ApiError(404, ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
    return this.rpc.request('items.rpc.get-by-code', { code, viewerUserId });
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an item (already claimed) for the calling user' })
  @ApiBody({ schema: jsonSchemaOf(createItemBodySchema) })
  @ApiResponse({ status: 201, schema: jsonSchemaOf(publicItemSchema) })
  @ApiResponse(errorResponses[400])
  @ApiResponse(errorResponses[401])
  @ApiResponse({ ...errorResponses[422], description: 'Validation error; or IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used for another request' })
  @ApiHeader({ name: USER_ID_HEADER, required: true, description: 'Temporary: the owner, until bearer tokens land.' })
  @ApiHeader(IDEMPOTENCY_KEY_API_HEADER)
  create(
    @Body(new ZodBodyPipe(createItemBodySchema)) body: CreateItemBody,
    @RequiredUserId() ownerUserId: string,
    @IdempotencyKey() idempotencyKey: string | undefined,
  ): Promise<PublicItem> {
    return this.rpc.request('items.rpc.create', { ...body, ownerUserId, idempotencyKey });
  }
}
