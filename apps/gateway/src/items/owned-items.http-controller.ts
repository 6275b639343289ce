import { Body, Controller, Delete, Get, Param, Patch, Query } from '@nestjs/common';
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
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiRoute, ApiTags } from '../http/api-route.decorator';
import { NOT_YOURS } from '../http/openapi';
import { ZodBodyPipe } from '../http/zod-body.pipe';
import { OwnedItemsService } from './owned-items.service';

const PAGE_QUERY = ['limit', 'offset'].map((name) => ({ name, required: false, schema: { type: 'integer' as const, minimum: 0 } }));

/** The logged-in owner's items: list, read, rename or set a reward, delete. */
@ApiTags('items')
@Controller('user/items')
export class OwnedItemsHttpController {
  constructor(private readonly items: OwnedItemsService) {}

  @Get()
  @ApiRoute({
    summary: 'The caller’s items, newest claim first',
    description: `limit defaults to ${OWNED_ITEMS_DEFAULT_LIMIT} (also for 0) and is capped at ${OWNED_ITEMS_MAX_LIMIT}.`,
    query: PAGE_QUERY,
    answer: z.array(publicItemSchema),
    errors: [422],
  })
  list(@Query(new ZodBodyPipe(ownedItemsQuerySchema)) page: OwnedItemsQuery, @CurrentUser() owner: AuthenticatedUser): Promise<PublicItem[]> {
    return this.items.list(owner.id, page);
  }

  @Get(':code')
  @ApiRoute({ summary: 'One of the caller’s items', description: NOT_YOURS, answer: publicItemSchema, errors: [404] })
  get(@Param('code') code: string, @CurrentUser() owner: AuthenticatedUser): Promise<PublicItem> {
    return this.items.get(owner.id, code);
  }

  @Patch(':code')
  @ApiRoute({
    summary: 'Rename an item or set its reward',
    description: `Reward in integer cents, refused (422) unless rewards are enabled. ${NOT_YOURS}`,
    body: updateItemBodySchema,
    answer: publicItemSchema,
    errors: [400, 404, 422],
  })
  update(@Param('code') code: string, @Body(new ZodBodyPipe(updateItemBodySchema)) changes: UpdateItemBody, @CurrentUser() owner: AuthenticatedUser): Promise<PublicItem> {
    return this.items.update(owner.id, code, changes);
  }

  @Delete(':code')
  @ApiRoute({ summary: 'Delete an item: its tag stops working and its conversations go', description: NOT_YOURS, status: 204, errors: [404] })
  delete(@Param('code') code: string, @CurrentUser() owner: AuthenticatedUser): Promise<void> {
    return this.items.delete(owner.id, code);
  }
}
