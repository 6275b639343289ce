import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { CreateMessageBody, CreateMessageResponse, FinderDetails, FinderTokenResponse, FoundItems, FoundItemsQuery, Message, ShareLocationBody, UserLanguage } from '@homing/contracts';
import { ResponseCode } from '@homing/contracts';
import { RpcClient } from '@homing/platform';
import { ApiError } from '../http/http-error';
import { clientNetworkOf, retryAfterSeconds } from '@homing/platform';
import { parseLastEventId } from './event-stream';
import { failedOnOurSide, MessageLimits } from './message-limits';
import { MessageStreams, type EventSink } from './message-streams';
import { StreamLeases, type LeaseAnswer } from './stream-leases';
import { ResumeLinkLimits } from './resume-link-limits';
import type { ThreadCaller } from './thread-access-cache';
import { ThreadReaders } from './thread-readers';

/** Finders' conversations with owners (messaging's RPC), behind the spam limits, the empty-poll answers and the live streams. */
@Injectable()
export class ConversationsService {
  private readonly logger = new Logger(ConversationsService.name);

  constructor(
    private readonly rpc: RpcClient,
    private readonly limits: MessageLimits,
    private readonly readers: ThreadReaders,
    private readonly streams: MessageStreams,
    private readonly leases: StreamLeases,
    private readonly resumeLinkLimits: ResumeLinkLimits,
  ) {}

  /** `language`: what the finder's browser asked in, if it named one; messaging keeps it for their e-mails and pushes. */
  setFinder(code: string, email: string, caller: ThreadCaller, language: UserLanguage | undefined): Promise<FinderTokenResponse> {
    return this.rpc.request('messaging.rpc.set-finder', { code, email, ...caller, language });
  }

  /** A resume link's token for a finder token of its conversation, for this browser (whose language, if named, is kept). */
  resumeFinder(code: string, token: string, language: UserLanguage | undefined): Promise<FinderTokenResponse> {
    return this.rpc.request('messaging.rpc.resume-finder', { code, token, language });
  }

  /**
   * Asks messaging to e-mail a resume link if a conversation of the item has the address, within the address's
   * hourly limit. The caller learns nothing either way: past the limit nothing is asked, and the answer is the same.
   */
  async requestResumeLink(code: string, email: string): Promise<void> {
    if (await this.resumeLinkLimits.admit(email)) await this.rpc.request('messaging.rpc.request-resume-link', { code, email });
  }

  /**
   * Counts against the spam limits first (429 with `Retry-After` past them, set on `reply`); a write that then fails
   * on the product's side (503, 504) gives its count back, so a finder retrying through an outage keeps the hour.
   */
  async postMessage(
    code: string,
    body: CreateMessageBody,
    caller: ThreadCaller,
    idempotencyKey: string | undefined,
    address: string,
    reply: Pick<FastifyReply, 'header'>,
    language?: UserLanguage,
  ): Promise<CreateMessageResponse> {
    const refund = await this.limits.admit(address, code, 'post-message', reply);
    // Messaging keys a retry by the caller; a finder without a token yet has nothing of their own but the item, so a
    // guessed key could replay another finder's first answer (and its finder token). Their key is made their
    // address's too, as a digest: neither the address nor the key is kept in clear.
    const scopedKey = idempotencyKey && !caller.viewerUserId && !caller.finderToken ? keyOfAddress(idempotencyKey, address) : idempotencyKey;
    try {
      return await this.rpc.request('messaging.rpc.post-message', { code, content: body.content, conversationId: body.conversation_id, ...caller, idempotencyKey: scopedKey, language });
    } catch (error) {
      if (failedOnOurSide(error)) await refund();
      throw error;
    }
  }

  /** A finder's place, an entry of their conversation: rounded here as messaging rounds it again, under the message limits. */
  async shareLocation(code: string, body: ShareLocationBody, caller: ThreadCaller, address: string, reply: Pick<FastifyReply, 'header'>): Promise<{ message: Message }> {
    if (!caller.finderToken) throw new ApiError(403, ResponseCode.FORBIDDEN, 'Only the finder of a conversation shares a place, with their finder token.');
    const refund = await this.limits.admit(address, code, 'share-location', reply);
    try {
      return await this.rpc.request('messaging.rpc.share-location', { code, location: body, ...caller });
    } catch (error) {
      if (failedOnOurSide(error)) await refund();
      throw error;
    }
  }

  /** A poll `after=` with nothing new is answered from the events this process saw, without messaging's database. */
  async listMessages(code: string, after: number | undefined, caller: ThreadCaller): Promise<Message[]> {
    if (after !== undefined && (await this.readers.nothingNewAfter(code, after, caller))) return [];
    return this.rpc.request('messaging.rpc.list-messages', { code, after, ...caller });
  }

  /**
   * Authorised by messaging once, before the stream opens (so a refusal is an ordinary error answer), then given one
   * of the address's places for open streams (`STREAMS_PER_ADDRESS`, shared by every replica), held until it closes.
   */
  async stream(code: string, caller: ThreadCaller, lastEventId: string | undefined, address: string, reply: Pick<FastifyReply, 'header'>, open: () => EventSink): Promise<void> {
    const resumeAfter = parseLastEventId(lastEventId);
    const access = await this.readers.authorise(code, caller);
    const lease = await this.leaseFor(address);
    if (!lease.granted) {
      void reply.header('retry-after', String(retryAfterSeconds(lease.retryAfterMs)));
      throw new ApiError(429, ResponseCode.RATE_LIMITED, 'Too many open message streams from this address. Close one, or try again later.');
    }
    const sink = open();
    sink.onClose(lease.release);
    this.streams.open(access, resumeAfter, sink, caller.viewerUserId);
  }

  private async leaseFor(address: string): Promise<LeaseAnswer> {
    try {
      return await this.leases.acquire(address);
    } catch (error) {
      // A reader is never refused because Redis is away: the cap is a defence against floods, not a lock.
      this.logger.warn(`stream cap unavailable: ${(error as Error).message}`);
      return { granted: true, release: () => undefined };
    }
  }

  finderDetails(ownerUserId: string, code: string, conversationId?: string): Promise<FinderDetails> {
    return this.rpc.request('messaging.rpc.finder-details', conversationId ? { code, ownerUserId, conversationId } : { code, ownerUserId });
  }

  async unreadCount(ownerUserId: string, code: string): Promise<number> {
    return (await this.rpc.request('messaging.rpc.unread-count', { code, ownerUserId })).count;
  }

  foundItems(ownerUserId: string, codes: FoundItemsQuery['codes']): Promise<FoundItems> {
    return this.rpc.request('messaging.rpc.found-items', { codes, ownerUserId });
  }

  /** A finder forgets themselves: messaging erases their conversation's personal data; only its finder may. */
  async forgetFinder(code: string, caller: ThreadCaller): Promise<void> {
    await this.rpc.request('messaging.rpc.forget-finder', { code, ...caller });
  }

  async reset(ownerUserId: string, code: string): Promise<void> {
    await this.rpc.request('messaging.rpc.reset', { code, ownerUserId });
  }
}

/**
 * An `Idempotency-Key` that only the same client can present again (within the contract's key format): the same
 * address, or for IPv6 the same /64, so a finder whose device moves to its next privacy address keeps its retry.
 */
export function keyOfAddress(idempotencyKey: string, address: string): string {
  return `addr:${createHash('sha256').update(clientNetworkOf(address)).update('\n').update(idempotencyKey).digest('base64url')}`;
}
