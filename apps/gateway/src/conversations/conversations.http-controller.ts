import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import {
  createMessageBodySchema,
  createMessageResponseSchema,
  finderDetailsSchema,
  finderTokenResponseSchema,
  foundItemsQuerySchema,
  foundItemsSchema,
  messageSchema,
  messagesQuerySchema,
  setFinderBodySchema,
  type CreateMessageBody,
  type CreateMessageResponse,
  type FinderDetails,
  type FinderTokenResponse,
  type FoundItems,
  type FoundItemsQuery,
  type Message,
  type MessagesQuery,
  type SetFinderBody,
} from '@homing/contracts';
import { Public, RpcClient } from '@homing/platform';
import { CurrentUser, OptionalCurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { DEFAULT_SSE_HEARTBEAT_MS } from '../config/gateway.config';
import { IDEMPOTENCY_KEY_API_HEADER, IdempotencyKey } from '../http/idempotency-key';
import { errorResponses, jsonSchemaOf, NOT_YOURS } from '../http/openapi';
import { ZodBodyPipe } from '../http/zod-body.pipe';
import { openEventStream, parseLastEventId } from './event-stream';
import { FINDER_TOKEN_API_HEADER, FinderToken } from './finder-token';
import { failedOnOurSide, MESSAGE_LIMITS, MessageLimits } from './message-limits';
import { MessageStreams } from './message-streams';
import { ThreadReaders } from './thread-readers';


/** A finder's conversation with an item's owner, from the finder page (`/found/{code}`). */
@ApiTags('messages')
@ApiBearerAuth()
@ApiHeader(FINDER_TOKEN_API_HEADER)
@Controller('items/:code')
export class ConversationsHttpController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly limits: MessageLimits,
    private readonly readers: ThreadReaders,
    private readonly streams: MessageStreams,
  ) {}

  @Public()
  @Post('set-finder')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Leave the finder’s e-mail address to hear of replies',
    description:
      'Before the first message it opens the finder’s conversation and answers its finder_token (send it as X-Finder-Token from then on); ' +
      'with the token of a conversation it changes that conversation’s address. The owner gets 403 CANNOT_FIND_YOUR_OWN_ITEM.',
  })
  @ApiBody({ schema: jsonSchemaOf(setFinderBodySchema) })
  @ApiOkResponse({ schema: jsonSchemaOf(finderTokenResponseSchema) })
  @ApiResponse(errorResponses[403])
  @ApiResponse(errorResponses[404])
  @ApiResponse(errorResponses[422])
  setFinder(
    @Param('code') code: string,
    @Body(new ZodBodyPipe(setFinderBodySchema)) body: SetFinderBody,
    @OptionalCurrentUser() viewer: AuthenticatedUser | null,
    @FinderToken() finderToken: string | undefined,
  ): Promise<FinderTokenResponse> {
    return this.rpc.request('messaging.rpc.set-finder', { code, email: body.email, viewerUserId: viewer?.id ?? null, finderToken });
  }

  @Public()
  @Post('messages')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Write to the owner, or, as the owner, reply',
    description:
      'A finder without a token opens a conversation and gets its finder_token; with X-Finder-Token they write in theirs. The owner (by access token) replies ' +
      'to the latest finder or to conversation_id, and cannot write first (403 CANNOT_FIND_YOUR_OWN_ITEM). 404 for an unknown or not yet activated item. ' +
      `Past ${MESSAGE_LIMITS.perAddressPerTag} messages an hour from one address to one tag, or ${MESSAGE_LIMITS.perTag} to one tag, 429 with Retry-After.`,
  })
  @ApiBody({ schema: jsonSchemaOf(createMessageBodySchema) })
  @ApiResponse({ status: 201, schema: jsonSchemaOf(createMessageResponseSchema) })
  @ApiResponse(errorResponses[403])
  @ApiResponse(errorResponses[404])
  @ApiResponse({ ...errorResponses[422], description: 'Validation error; or IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used for another request' })
  @ApiResponse(errorResponses[429])
  @ApiHeader(IDEMPOTENCY_KEY_API_HEADER)
  async postMessage(
    @Param('code') code: string,
    @Body(new ZodBodyPipe(createMessageBodySchema)) body: CreateMessageBody,
    @OptionalCurrentUser() viewer: AuthenticatedUser | null,
    @FinderToken() finderToken: string | undefined,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CreateMessageResponse> {
    const refund = await this.limits.admit(request.ip, code, reply);
    try {
      return await this.rpc.request('messaging.rpc.post-message', {
        code,
        content: body.content,
        conversationId: body.conversation_id,
        viewerUserId: viewer?.id ?? null,
        finderToken,
        idempotencyKey,
      });
    } catch (error) {
      if (failedOnOurSide(error)) await refund();
      throw error;
    }
  }

  @Public()
  @Get('messages')
  @ApiOperation({
    summary: 'The thread: every conversation for the owner, their own for a finder',
    description:
      'The owner’s read marks the finders’ messages read (is_read as it was before this read); with several finders each message says which. ' +
      'Anyone else gets 403 FORBIDDEN (the page shows the first-message form). after=<id> returns only newer messages; ' +
      'a poll with nothing new is answered without touching the database.',
  })
  @ApiQuery({ name: 'after', required: false, schema: { type: 'integer', minimum: 0 } })
  @ApiOkResponse({ schema: jsonSchemaOf(z.array(messageSchema)) })
  @ApiResponse(errorResponses[403])
  @ApiResponse(errorResponses[404])
  async listMessages(
    @Param('code') code: string,
    @Query(new ZodBodyPipe(messagesQuerySchema)) query: MessagesQuery,
    @OptionalCurrentUser() viewer: AuthenticatedUser | null,
    @FinderToken() finderToken: string | undefined,
  ): Promise<Message[]> {
    const viewerUserId = viewer?.id ?? null;
    if (query.after !== undefined && (await this.readers.nothingNewAfter(code, query.after, { viewerUserId, finderToken }))) return [];
    return this.rpc.request('messaging.rpc.list-messages', { code, after: query.after, viewerUserId, finderToken });
  }

  @Public()
  @Get('messages/stream')
  @ApiOperation({
    summary: 'New messages as server-sent events, as they are written',
    description:
      'What the caller may read, as GET messages decides (owner: every conversation; finder with X-Finder-Token: theirs; else 403), authorised ' +
      'when the stream opens. Each message is an event `message` with `id` = message id and the message as JSON data; a reset sends `cleared` ' +
      `(and ends a finder's stream); a comment line every ${DEFAULT_SSE_HEARTBEAT_MS / 1000} s (SSE_HEARTBEAT_MS) keeps it open. Last-Event-ID resumes after that message. ` +
      'Credentials travel in headers as on every route (read the stream with fetch, not EventSource, which cannot send them); ' +
      'messages are not marked read by the stream. The stream ends when the gateway shuts down: reconnect with Last-Event-ID.',
  })
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'The id of the last message received: the stream first sends every message after it.' })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({ description: 'An endless text/event-stream' })
  @ApiResponse(errorResponses[403])
  @ApiResponse(errorResponses[404])
  @ApiResponse(errorResponses[422])
  async streamMessages(
    @Param('code') code: string,
    @OptionalCurrentUser() viewer: AuthenticatedUser | null,
    @FinderToken() finderToken: string | undefined,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const resumeAfter = parseLastEventId(lastEventId);
    const access = await this.readers.authorise(code, { viewerUserId: viewer?.id ?? null, finderToken });
    this.streams.open(access, resumeAfter, openEventStream(reply));
  }

  @Get('finder-details')
  @ApiOperation({ summary: 'Whether replies reach the latest finder (they left an address); never the address', description: NOT_YOURS })
  @ApiOkResponse({ schema: jsonSchemaOf(finderDetailsSchema) })
  @ApiResponse(errorResponses[401])
  @ApiResponse(errorResponses[404])
  finderDetails(@Param('code') code: string, @CurrentUser() owner: AuthenticatedUser): Promise<FinderDetails> {
    return this.rpc.request('messaging.rpc.finder-details', { code, ownerUserId: owner.id });
  }
}

/** The owner's view of what finders wrote: unread counts, found flags, reset. */
@ApiTags('messages')
@ApiBearerAuth()
@ApiResponse(errorResponses[401])
@Controller('user')
export class OwnerConversationsHttpController {
  constructor(private readonly rpc: RpcClient) {}

  @Get('items/:code/unread-count')
  @ApiOperation({ summary: 'How many finders’ messages about the item the owner has not read', description: NOT_YOURS })
  @ApiOkResponse({ schema: { type: 'integer', minimum: 0 } })
  @ApiResponse(errorResponses[404])
  async unreadCount(@Param('code') code: string, @CurrentUser() owner: AuthenticatedUser): Promise<number> {
    return (await this.rpc.request('messaging.rpc.unread-count', { code, ownerUserId: owner.id })).count;
  }

  @Get('found-items')
  @ApiOperation({ summary: 'For each code asked (comma-separated), whether a finder wrote about it', description: 'Codes that are not the caller’s are false.' })
  @ApiQuery({ name: 'codes', required: true, schema: { type: 'string' } })
  @ApiOkResponse({ schema: jsonSchemaOf(foundItemsSchema) })
  @ApiResponse(errorResponses[422])
  foundItems(@Query(new ZodBodyPipe(foundItemsQuerySchema)) query: FoundItemsQuery, @CurrentUser() owner: AuthenticatedUser): Promise<FoundItems> {
    return this.rpc.request('messaging.rpc.found-items', { codes: query.codes, ownerUserId: owner.id });
  }

  @Post('items/:code/reset')
  @HttpCode(204)
  @ApiOperation({ summary: 'Clear every conversation about the item, so the next finder starts afresh', description: NOT_YOURS })
  @ApiNoContentResponse()
  @ApiResponse(errorResponses[404])
  async reset(@Param('code') code: string, @CurrentUser() owner: AuthenticatedUser): Promise<void> {
    await this.rpc.request('messaging.rpc.reset', { code, ownerUserId: owner.id });
  }
}
