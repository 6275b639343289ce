import { Body, Controller, Delete, Get, Headers, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  createMessageBodySchema,
  createMessageResponseSchema,
  finderDetailsQuerySchema,
  finderDetailsSchema,
  finderResumeBodySchema,
  finderTokenResponseSchema,
  foundItemsQuerySchema,
  foundItemsSchema,
  messageSchema,
  messagesQuerySchema,
  resumeLinkBodySchema,
  setFinderBodySchema,
  shareLocationBodySchema,
  type CreateMessageBody,
  type CreateMessageResponse,
  type FinderDetails,
  type FinderDetailsQuery,
  type FinderResumeBody,
  type FinderTokenResponse,
  type FoundItems,
  type FoundItemsQuery,
  type Message,
  type MessagesQuery,
  type ResumeLinkBody,
  type SetFinderBody,
  type ShareLocationBody,
} from '@homing/contracts';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { DEFAULT_SSE_HEARTBEAT_MS } from '../config/gateway.config';
import { ApiRoute, ApiTags } from '../http/api-route.decorator';
import { IdempotencyKey } from '../http/idempotency-key';
import { NOT_YOURS } from '../http/openapi';
import { namedLanguage } from '../http/request-language';
import { ZodBodyPipe } from '../http/zod-body.pipe';
import { ConversationsService } from './conversations.service';
import { openEventStream } from './event-stream';
import { ThreadCallerOf } from './finder-token';
import { MESSAGE_LIMITS } from '@homing/platform';
import type { ThreadCaller } from './thread-access-cache';

const RESUME_LINK_SENT_SCHEMA = z.object({ message: z.string() });
// The same answer whether or not the address wrote about the item: no oracle.
const RESUME_LINK_SENT = { message: 'If you wrote about this item with this address, a link to your conversation is on its way.' };

/** A finder's conversation with an item's owner, from the finder page (`/found/{code}`). */
@ApiTags('messages')
@Controller('items/:code')
export class ConversationsHttpController {
  constructor(private readonly conversations: ConversationsService) {}

  @Post('set-finder')
  @ApiRoute({
    summary: 'Leave the finder’s e-mail address to hear of replies',
    description:
      'Before the first message it opens the finder’s conversation and answers its finder_token (send it as X-Finder-Token from then on); ' +
      'with the token of a conversation it changes that conversation’s address. The owner gets 403 CANNOT_FIND_YOUR_OWN_ITEM.',
    caller: 'anyone-or-user',
    finderToken: 'optional',
    body: setFinderBodySchema,
    answer: finderTokenResponseSchema,
    errors: [403, 404, 422],
  })
  setFinder(
    @Param('code') code: string,
    @Body(new ZodBodyPipe(setFinderBodySchema)) body: SetFinderBody,
    @ThreadCallerOf() caller: ThreadCaller,
    @Req() request: FastifyRequest,
  ): Promise<FinderTokenResponse> {
    return this.conversations.setFinder(code, body.email, caller, namedLanguage(request));
  }

  @Post('finder-resume')
  @ApiRoute({
    summary: 'Exchange a resume link’s token for a finder token of the same conversation',
    description:
      'The token of `/found/{code}?resume=<token>` from a finder’s e-mail. Answers a new finder_token for this browser (send it as X-Finder-Token); ' +
      'the browsers that wrote before keep theirs. An unknown or altered token, or one whose conversation has had no message for ' +
      '30 days (or was cleared), is 422 RESUME_LINK_EXPIRED.',
    caller: 'anyone',
    rateLimit: 'login',
    body: finderResumeBodySchema,
    answer: finderTokenResponseSchema,
    errors: [404, 422],
  })
  resumeFinder(@Param('code') code: string, @Body(new ZodBodyPipe(finderResumeBodySchema)) body: FinderResumeBody, @Req() request: FastifyRequest): Promise<FinderTokenResponse> {
    return this.conversations.resumeFinder(code, body.token, namedLanguage(request));
  }

  @Post('resume-link')
  @ApiRoute({
    summary: 'E-mail a finder a link to their conversation',
    description:
      'When a conversation about the item has this address, its finder gets an e-mail (in their language) with a resume link. ' +
      'Answers 202 the same whether or not it has; at most a few links an hour go to one address.',
    caller: 'anyone',
    rateLimit: 'email',
    status: 202,
    body: resumeLinkBodySchema,
    answer: RESUME_LINK_SENT_SCHEMA,
    errors: [404, 422],
  })
  async requestResumeLink(@Param('code') code: string, @Body(new ZodBodyPipe(resumeLinkBodySchema)) body: ResumeLinkBody): Promise<{ message: string }> {
    await this.conversations.requestResumeLink(code, body.email);
    return RESUME_LINK_SENT;
  }

  @Post('messages')
  @ApiRoute({
    summary: 'Write to the owner, or, as the owner, reply',
    description:
      'A finder without a token opens a conversation and gets its finder_token; with X-Finder-Token they write in theirs. The owner (by access token) replies ' +
      'to the latest finder or to conversation_id, and cannot write first (403 CANNOT_FIND_YOUR_OWN_ITEM); a finder who deleted their conversation takes no reply ' +
      '(409 FINDER_LEFT). 404 for an unknown or not yet activated item. ' +
      `Past ${MESSAGE_LIMITS.perAddressPerTag} messages an hour from one address to one tag, or ${MESSAGE_LIMITS.perTag} to one tag, 429 with Retry-After.`,
    caller: 'anyone-or-user',
    finderToken: 'optional',
    status: 201,
    body: createMessageBodySchema,
    answer: createMessageResponseSchema,
    errors: [403, 404, 409, 429],
    idempotent: true,
    rateLimit: 'by-route',
  })
  postMessage(
    @Param('code') code: string,
    @Body(new ZodBodyPipe(createMessageBodySchema)) body: CreateMessageBody,
    @ThreadCallerOf() caller: ThreadCaller,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CreateMessageResponse> {
    return this.conversations.postMessage(code, body, caller, idempotencyKey, request.ip, reply, namedLanguage(request));
  }

  @Post('location')
  @ApiRoute({
    summary: 'As a finder, share where I found the item',
    description:
      'With X-Finder-Token: becomes an entry of the finder’s conversation (a message with `location` and empty content), which the owner reads in the thread. ' +
      'Rounded to 2 decimals (about 1 km, accuracy at least 1000 m) unless precise, then to 5. Erased with the conversation. ' +
      'Without a finder token 403; counts against the same limits as messages.',
    caller: 'anyone',
    finderToken: 'required',
    status: 201,
    rateLimit: 'by-route',
    body: shareLocationBodySchema,
    answer: z.object({ message: messageSchema }),
    errors: [403, 404, 409, 429],
  })
  shareLocation(
    @Param('code') code: string,
    @Body(new ZodBodyPipe(shareLocationBodySchema)) body: ShareLocationBody,
    @ThreadCallerOf() caller: ThreadCaller,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ message: Message }> {
    return this.conversations.shareLocation(code, body, caller, request.ip, reply);
  }

  @Delete('conversation')
  @ApiRoute({
    summary: 'As a finder, delete my conversation and what I left',
    description:
      'With X-Finder-Token: the finder’s messages, e-mail address, language and every token of their conversation (other browsers’, resume links) ' +
      'are erased at once; the owner’s thread keeps their replies and says that the finder left, and takes no more replies to it. ' +
      'A token already forgotten, or none, is 403 FORBIDDEN as for reading; the owner too gets 403.',
    caller: 'anyone-or-user',
    finderToken: 'required',
    status: 204,
    errors: [403, 404],
  })
  forgetFinder(@Param('code') code: string, @ThreadCallerOf() caller: ThreadCaller): Promise<void> {
    return this.conversations.forgetFinder(code, caller);
  }

  @Get('messages')
  @ApiRoute({
    summary: 'The thread: every conversation for the owner, their own for a finder',
    description:
      'The owner’s read marks the finders’ messages read (is_read as it was before this read); with several finders each message says which. ' +
      'Anyone else gets 403 FORBIDDEN (the page shows the first-message form). after=<id> returns only newer messages; ' +
      'a poll with nothing new is answered without touching the database.',
    caller: 'anyone-or-user',
    finderToken: 'optional',
    query: [{ name: 'after', required: false, schema: { type: 'integer', minimum: 0 } }],
    answer: z.array(messageSchema),
    errors: [403, 404],
  })
  listMessages(@Param('code') code: string, @Query(new ZodBodyPipe(messagesQuerySchema)) query: MessagesQuery, @ThreadCallerOf() caller: ThreadCaller): Promise<Message[]> {
    return this.conversations.listMessages(code, query.after, caller);
  }

  @Get('messages/stream')
  @ApiRoute({
    summary: 'New messages as server-sent events, as they are written',
    description:
      'What the caller may read, as GET messages decides (owner: every conversation; finder with X-Finder-Token: theirs; else 403), authorised ' +
      'when the stream opens. Each message is an event `message` with `id` = message id and the message as JSON data; a reset sends `cleared` ' +
      `(and ends a finder's stream); a comment line every ${DEFAULT_SSE_HEARTBEAT_MS / 1000} s (SSE_HEARTBEAT_MS) keeps it open. Last-Event-ID resumes after that message. ` +
      'Credentials travel in headers as on every route (read the stream with fetch, not EventSource, which cannot send them); ' +
      'messages are not marked read by the stream. The stream ends when the gateway shuts down: reconnect with Last-Event-ID. ' +
      'One client address holds at most STREAMS_PER_ADDRESS streams open (20 by default); another answers 429 with Retry-After.',
    caller: 'anyone-or-user',
    finderToken: 'optional',
    headers: [{ name: 'Last-Event-ID', required: false, description: 'The id of the last message received: the stream first sends every message after it.' }],
    produces: ['text/event-stream'],
    answer: { description: 'An endless text/event-stream' },
    errors: [403, 404, 422, 429],
  })
  streamMessages(
    @Param('code') code: string,
    @ThreadCallerOf() caller: ThreadCaller,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.conversations.stream(code, caller, lastEventId, request.ip, reply, () => openEventStream(reply));
  }

  @Get('finder-details')
  @ApiRoute({
    summary: 'Whether replies reach a finder (they left an address); never the address',
    description: `The finder of conversation_id when given (one of this item's, else 404 NOT_FOUND), else the latest finder. ${NOT_YOURS}`,
    finderToken: 'optional',
    query: [{ name: 'conversation_id', required: false, schema: { type: 'string', format: 'uuid' } }],
    answer: finderDetailsSchema,
    errors: [404, 422],
  })
  finderDetails(
    @Param('code') code: string,
    @Query(new ZodBodyPipe(finderDetailsQuerySchema)) query: FinderDetailsQuery,
    @CurrentUser() owner: AuthenticatedUser,
  ): Promise<FinderDetails> {
    return this.conversations.finderDetails(owner.id, code, query.conversation_id);
  }
}

/** The owner's view of what finders wrote: unread counts, found flags, reset. */
@ApiTags('messages')
@Controller('user')
export class OwnerConversationsHttpController {
  constructor(private readonly conversations: ConversationsService) {}

  @Get('items/:code/unread-count')
  @ApiRoute({ summary: 'How many finders’ messages about the item the owner has not read', description: NOT_YOURS, answer: { schema: { type: 'integer', minimum: 0 } }, errors: [404] })
  unreadCount(@Param('code') code: string, @CurrentUser() owner: AuthenticatedUser): Promise<number> {
    return this.conversations.unreadCount(owner.id, code);
  }

  @Get('found-items')
  @ApiRoute({
    summary: 'For each code asked (comma-separated), whether a finder wrote about it',
    description: 'Codes that are not the caller’s are false.',
    query: [{ name: 'codes', required: true, schema: { type: 'string' } }],
    answer: foundItemsSchema,
    errors: [422],
  })
  foundItems(@Query(new ZodBodyPipe(foundItemsQuerySchema)) query: FoundItemsQuery, @CurrentUser() owner: AuthenticatedUser): Promise<FoundItems> {
    return this.conversations.foundItems(owner.id, query.codes);
  }

  @Post('items/:code/reset')
  @ApiRoute({ summary: 'Clear every conversation about the item, so the next finder starts afresh', description: NOT_YOURS, status: 204, errors: [404] })
  reset(@Param('code') code: string, @CurrentUser() owner: AuthenticatedUser): Promise<void> {
    return this.conversations.reset(owner.id, code);
  }
}
