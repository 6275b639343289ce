import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import {
  contactConsentBodySchema,
  conversationStateQuerySchema,
  conversationStateSchema,
  HANDOVER_MAX_WRONG_PER_HOUR,
  handoverBodySchema,
  handoverCodeSchema,
  handoverResultSchema,
  type ContactConsentBody,
  type ConversationState,
  type ConversationStateQuery,
  type HandoverBody,
  type HandoverCode,
  type HandoverResult,
} from '@homing/contracts';
import { RpcClient } from '@homing/platform';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiRoute, ApiTags } from '../http/api-route.decorator';
import { NOT_YOURS } from '../http/openapi';
import { ZodBodyPipe } from '../http/zod-body.pipe';
import { PublicItemsService } from '../items/public-items.service';
import { ThreadCallerOf } from './finder-token';
import type { ThreadCaller } from './thread-access-cache';

const CONVERSATION_QUERY = [{ name: 'conversation_id', required: false, schema: { type: 'string' as const, format: 'uuid' } }];

/** The hand-over made safe (messaging's): contact details masked until both agree, and a code that closes the case. */
@ApiTags('messages')
@Controller()
export class SafeHandoverHttpController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly publicItems: PublicItemsService,
  ) {}

  @Get('items/:code/conversation')
  @ApiRoute({
    summary: 'A conversation’s contact consent and hand-over state',
    description: 'The finder’s own (X-Finder-Token), or for the owner the conversation named by conversation_id, else the latest. 404 when there is none.',
    caller: 'anyone-or-user',
    finderToken: 'optional',
    query: CONVERSATION_QUERY,
    answer: conversationStateSchema,
    errors: [403, 404, 422],
  })
  state(@Param('code') code: string, @Query(new ZodBodyPipe(conversationStateQuerySchema)) query: ConversationStateQuery, @ThreadCallerOf() caller: ThreadCaller): Promise<ConversationState> {
    return this.rpc.request('messaging.rpc.conversation-state', { code, conversationId: query.conversation_id, ...caller });
  }

  @Post('items/:code/contact-consent')
  @ApiRoute({
    summary: 'Agree to share contact details in a conversation, or withdraw',
    description:
      'Phone numbers, IBANs, e-mail addresses and links in a message are shown to the other side masked until both sides agreed; the writer always reads their own text. ' +
      'The finder by X-Finder-Token; the owner for conversation_id, else the latest. A side may withdraw until the other has agreed (then 409 CONTACT_ALREADY_SHARED).',
    caller: 'anyone-or-user',
    finderToken: 'optional',
    body: contactConsentBodySchema,
    answer: conversationStateSchema,
    errors: [403, 404, 409],
  })
  consent(@Param('code') code: string, @Body(new ZodBodyPipe(contactConsentBodySchema)) body: ContactConsentBody, @ThreadCallerOf() caller: ThreadCaller): Promise<ConversationState> {
    return this.rpc.request('messaging.rpc.contact-consent', { code, agree: body.agree, conversationId: body.conversation_id, ...caller });
  }

  @Get('user/items/:code/handover-code')
  @ApiRoute({
    summary: 'The item’s hand-over code of the day, to tell the person who hands it over',
    description: `6 digits, a new one every UTC day (yesterday’s still closes a case). ${NOT_YOURS}`,
    answer: handoverCodeSchema,
    errors: [404],
  })
  handoverCode(@Param('code') code: string, @CurrentUser() owner: AuthenticatedUser): Promise<HandoverCode> {
    return this.rpc.request('messaging.rpc.handover-code', { code, ownerUserId: owner.id });
  }

  @Post('items/:code/handover')
  @ApiRoute({
    summary: 'As the finder, close the case with the owner’s hand-over code',
    description:
      'With X-Finder-Token. The right code closes the conversation (then 409 CONVERSATION_CLOSED for new messages), ends the item’s lost mode and answers the reward now due (only while rewards are enabled). ' +
      `A wrong code is 422 {code: invalid}; after ${HANDOVER_MAX_WRONG_PER_HOUR} wrong codes within an hour, 429 with Retry-After.`,
    caller: 'anyone',
    finderToken: 'required',
    body: handoverBodySchema,
    answer: handoverResultSchema,
    errors: [403, 404, 409, 422, 429],
  })
  async handOver(@Param('code') code: string, @Body(new ZodBodyPipe(handoverBodySchema)) body: HandoverBody, @ThreadCallerOf() caller: ThreadCaller): Promise<HandoverResult> {
    const { closedAt } = await this.rpc.request('messaging.rpc.handover', { code, handoverCode: body.code, ...caller });
    // The public answer carries a reward only while rewards are enabled and one is set: then it is due.
    const item = await this.publicItems.scan(code, null).catch(() => null);
    return { closed_at: closedAt, ...(item?.reward !== undefined ? { reward: item.reward } : {}) };
  }
}
