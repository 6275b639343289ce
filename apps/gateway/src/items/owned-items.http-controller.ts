import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import {
  OWNED_ITEMS_DEFAULT_LIMIT,
  OWNED_ITEMS_MAX_LIMIT,
  ownedItemsQuerySchema,
  publicItemSchema,
  updateItemBodySchema,
  type OwnedItemsQuery,
  type PublicItem,
  type UpdateItemBody,
} from '@homing/contracts';
import { RpcClient } from '@homing/platform';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { errorResponses, jsonSchemaOf, NOT_YOURS } from '../http/openapi';
import { ZodBodyPipe } from '../http/zod-body.pipe';
import { PublicItemCache } from './public-item-cache';


/** The logged-in owner's items: list, read, rename or set a reward, delete. */
@ApiTags('items')
@ApiBearerAuth()
@ApiResponse(errorResponses[401])
@Controller('user/items')
export class OwnedItemsHttpController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly publicItems: PublicItemCache,
  ) {}

  @Get()
  @ApiOperation({ summary: 'The caller’s items, newest claim first', description: `limit defaults to ${OWNED_ITEMS_DEFAULT_LIMIT} (also for 0) and is capped at ${OWNED_ITEMS_MAX_LIMIT}.` })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 0 } })
  @ApiQuery({ name: 'offset', required: false, schema: { type: 'integer', minimum: 0 } })
  @ApiOkResponse({ schema: jsonSchemaOf(z.array(publicItemSchema)) })
  @ApiResponse(errorResponses[422])
  list(@Query(new ZodBodyPipe(ownedItemsQuerySchema)) page: OwnedItemsQuery, @CurrentUser() owner: AuthenticatedUser): Promise<PublicItem[]> {
    return this.rpc.request('items.rpc.list-owned', { ownerUserId: owner.id, ...page });
  }

  @Get(':code')
  @ApiOperation({ summary: 'One of the caller’s items', description: NOT_YOURS })
  @ApiOkResponse({ schema: jsonSchemaOf(publicItemSchema) })
  @ApiResponse(errorResponses[404])
  get(@Param('code') code: string, @CurrentUser() owner: AuthenticatedUser): Promise<PublicItem> {
    return this.rpc.request('items.rpc.get-owned', { code, ownerUserId: owner.id });
  }

  @Patch(':code')
  @ApiOperation({ summary: 'Rename an item or set its reward', description: `Reward in integer cents, refused (422) unless rewards are enabled. ${NOT_YOURS}` })
  @ApiBody({ schema: jsonSchemaOf(updateItemBodySchema) })
  @ApiOkResponse({ schema: jsonSchemaOf(publicItemSchema) })
  @ApiResponse(errorResponses[400])
  @ApiResponse(errorResponses[404])
  @ApiResponse(errorResponses[422])
  update(
    @Param('code') code: string,
    @Body(new ZodBodyPipe(updateItemBodySchema)) changes: UpdateItemBody,
    @CurrentUser() owner: AuthenticatedUser,
  ): Promise<PublicItem> {
    return this.publicItems.changing(code, this.rpc.request('items.rpc.update', { ...changes, code, ownerUserId: owner.id }));
  }

  @Delete(':code')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete an item: its tag stops working and its conversations go', description: NOT_YOURS })
  @ApiNoContentResponse()
  @ApiResponse(errorResponses[404])
  async delete(@Param('code') code: string, @CurrentUser() owner: AuthenticatedUser): Promise<void> {
    await this.publicItems.changing(code, this.rpc.request('items.rpc.delete', { code, ownerUserId: owner.id }));
  }
}
