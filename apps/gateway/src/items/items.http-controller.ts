import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { createItemBodySchema, publicItemSchema, type CreateItemBody, type PublicItem } from '@homing/contracts';
import { UNKNOWN_CODE_LIMIT } from '@homing/platform';
import { CurrentUser, OptionalCurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiRoute, ApiTags } from '../http/api-route.decorator';
import { IdempotencyKey } from '../http/idempotency-key';
import { ZodBodyPipe } from '../http/zod-body.pipe';
import { OwnedItemsService } from './owned-items.service';
import { PublicItemsService } from './public-items.service';

@ApiTags('items')
@Controller('items')
export class ItemsHttpController {
  constructor(
    private readonly publicItems: PublicItemsService,
    private readonly ownedItems: OwnedItemsService,
  ) {}

  @Get(':code')
  @ApiRoute({
    summary: 'What a finder sees after scanning a tag',
    description: `Unknown and malformed codes are the same 404. After ${UNKNOWN_CODE_LIMIT.misses} unknown codes in an hour (on this or any route with a code), a client address gets 429 on every route with a code until the hour is over.`,
    caller: 'anyone-or-user',
    // The hottest path (a finder's scan) costs no Redis round trip; guessing codes is limited separately.
    rateLimit: 'none',
    answer: publicItemSchema,
    errors: [404, 429],
  })
  // The route's contract. Requests are answered by ScanPlainRoute (servePlainHandlers), which makes the same call
  // outside Nest's pipeline; this body is what that handler does, kept for a server without it.
  getByCode(@Param('code') code: string, @OptionalCurrentUser() viewer: AuthenticatedUser | null): Promise<PublicItem> {
    return this.publicItems.scan(code, viewer?.id ?? null);
  }

  @Post()
  @ApiRoute({ summary: 'Create an item (already claimed) for the calling user', status: 201, body: createItemBodySchema, answer: publicItemSchema, errors: [400], idempotent: true })
  create(@Body(new ZodBodyPipe(createItemBodySchema)) body: CreateItemBody, @CurrentUser() owner: AuthenticatedUser, @IdempotencyKey() idempotencyKey: string | undefined): Promise<PublicItem> {
    return this.ownedItems.create(owner.id, body, idempotencyKey);
  }
}
