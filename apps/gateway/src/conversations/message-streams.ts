import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Message, ThreadAccess, ThreadMessage } from '@homing/contracts';
import { InjectConfig, RpcClient, RpcError } from '@homing/platform';
import { DEFAULT_SSE_HEARTBEAT_MS, type GatewayConfig } from '../config/gateway.config';
// A client that reads slower than its messages arrive is dropped rather than buffered without end; it reconnects
// with Last-Event-ID and misses nothing.
const MAX_BUFFERED_BYTES = 1024 * 1024;
// After a failed fetch of an item's new messages, try again this much later (the next event also retries).
const RETRY_FETCH_MS = 1000;

/** Where one client's server-sent events go: an HTTP response in the gateway, an array in tests. */
export interface EventSink {
  /** Writes a chunk; answers how many bytes wait to be sent to the client. */
  write(chunk: string): number;
  end(): void;
  onClose(listener: () => void): void;
}

interface StreamClient {
  sink: EventSink;
  /** The finder's conversation; null for the owner, who reads the whole item. */
  conversationId: string | null;
  /** Who reads the whole item (its owner or a co-owner), while they are one of its people; null for a finder. */
  readerUserId: string | null;
  /** The newest message sent (or the client had already): only newer ones are sent. */
  lastSentId: number;
  /** While the client's own catch-up fetch runs, what the item's fetches deliver waits here. */
  held: ThreadMessage[] | null;
}

/** The open streams of one item, and how far its shared fetch has read. */
interface ItemChannel {
  itemCode: string;
  clients: Set<StreamClient>;
  /** Messages up to this id were fetched (or existed before the first client came). */
  cursor: number;
  fetching: boolean;
  /** An event came while a fetch ran: fetch once more afterwards. */
  again: boolean;
}

/**
 * The server-sent event streams of one gateway process (`GET /items/{code}/messages/stream`). Events name a new
 * message by id only, so each item's new messages are fetched once from messaging, however many streams are open on
 * it, and fanned out to the clients authorised when they connected: the owner gets every conversation, a finder
 * only theirs. Nothing here polls: fetches happen only because an event came.
 */
@Injectable()
export class MessageStreams implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(MessageStreams.name);
  private readonly channels = new Map<string, ItemChannel>();
  private heartbeats?: NodeJS.Timeout;

  constructor(
    private readonly rpc: RpcClient,
    @InjectConfig() private readonly config: Pick<GatewayConfig, 'SSE_HEARTBEAT_MS'> = { SSE_HEARTBEAT_MS: DEFAULT_SSE_HEARTBEAT_MS },
  ) {}

  onModuleInit(): void {
    // One timer for every stream of the process.
    this.heartbeats = setInterval(() => this.heartbeat(), this.config.SSE_HEARTBEAT_MS).unref();
  }

  /** Shutdown: every stream ends cleanly (clients reconnect, to another replica), before HTTP stops. */
  beforeApplicationShutdown(): void {
    clearInterval(this.heartbeats);
    for (const channel of this.channels.values()) for (const client of channel.clients) client.sink.end();
    this.channels.clear();
  }

  /**
   * A client authorised by messaging starts listening. With `resumeAfter` (its Last-Event-ID) it first gets what it
   * missed, fetched once for it; otherwise it starts from the newest message at authorisation.
   */
  open(access: ThreadAccess, resumeAfter: number | undefined, sink: EventSink, readerUserId: string | null = null): void {
    const channel = this.channelOf(access.itemCode, access.latestMessageId);
    const client: StreamClient = {
      sink,
      conversationId: access.conversationId,
      readerUserId: access.conversationId === null ? readerUserId : null,
      lastSentId: resumeAfter ?? access.latestMessageId,
      held: null,
    };
    channel.clients.add(client);
    sink.onClose(() => this.remove(channel, client));
    // Missed: before it reconnected, or between its authorisation and now if the item's fetch ran meanwhile.
    if (client.lastSentId < Math.max(access.latestMessageId, channel.cursor)) void this.catchUp(channel, client);
  }

  /** `messaging.message.created.v1`: fetch the item's new messages if anyone listening may read this one. */
  messageCreated(itemCode: string, conversationId: string, messageId: number): void {
    const channel = this.channels.get(itemCode);
    if (!channel || messageId <= channel.cursor) return;
    const interested = [...channel.clients].some((client) => client.conversationId === null || client.conversationId === conversationId);
    if (interested) void this.fetchNew(channel);
  }

  /**
   * `messaging.messages.receipts.v1`: messages of a conversation changed at `version` (delivered, read, or stamped
   * again as written once both sides agreed to share contact details). The streams that carry the conversation get
   * each changed message again, under its id, as a `message` event without an `id:` line (the client's Last-Event-ID
   * stays at the newest message it has); a client replaces the message it had.
   */
  receiptsChanged(itemCode: string, conversationId: string, version: number): void {
    const channel = this.channels.get(itemCode);
    if (!channel) return;
    const interested = [...channel.clients].some((client) => client.conversationId === null || client.conversationId === conversationId);
    if (interested) void this.fetchChanged(channel, conversationId, version);
  }

  /**
   * `messaging.conversation.cleared.v1` (reset): every stream of the item gets `cleared`. Finders' conversations
   * are gone, so their streams end after it; the owner's stay open for the next finder.
   */
  conversationsCleared(itemCode: string, version: number): void {
    const channel = this.channels.get(itemCode);
    if (!channel) return;
    channel.cursor = Math.max(channel.cursor, version);
    for (const client of channel.clients) {
      this.send(client, 'event: cleared\ndata: {}\n\n');
      if (client.conversationId !== null) client.sink.end();
    }
  }

  /**
   * `messaging.finder.left.v1`: the finder deleted their conversation. The owner's streams get `finder-left` with the
   * conversation's id (their page then says so and stops offering a reply); that finder's own streams end after it.
   */
  finderLeft(itemCode: string, conversationId: string, version: number): void {
    const channel = this.channels.get(itemCode);
    if (!channel) return;
    channel.cursor = Math.max(channel.cursor, version);
    for (const client of channel.clients) {
      if (client.conversationId !== null && client.conversationId !== conversationId) continue;
      this.send(client, `event: finder-left\ndata: ${JSON.stringify({ conversation_id: conversationId })}\n\n`);
      if (client.conversationId === conversationId) client.sink.end();
    }
  }

  /**
   * `items.item.people-changed.v1` (a co-owner removed or gone, a transfer): a stream was authorised when it opened, so
   * the whole-item streams of anyone no longer among the item's people end now (a browser reconnects and is asked
   * again; one no longer of the item is refused). Finders' streams are not theirs to end.
   */
  peopleChanged(itemCode: string, people: ReadonlySet<string>): void {
    const channel = this.channels.get(itemCode);
    if (!channel) return;
    for (const client of channel.clients) {
      if (client.conversationId === null && (client.readerUserId === null || !people.has(client.readerUserId))) client.sink.end();
    }
  }

  /** `items.item.deleted.v1`: nobody may read the thread any more. */
  itemDeleted(itemCode: string): void {
    const channel = this.channels.get(itemCode);
    if (!channel) return;
    for (const client of channel.clients) client.sink.end();
    this.channels.delete(itemCode);
  }

  /** Events may have been missed (NATS reconnected): every item with listeners fetches what is newer. */
  resync(): void {
    for (const channel of this.channels.values()) void this.fetchNew(channel);
  }

  /** Open streams, for tests and metrics. */
  get openStreams(): number {
    let count = 0;
    for (const channel of this.channels.values()) count += channel.clients.size;
    return count;
  }

  heartbeat(): void {
    for (const channel of this.channels.values()) for (const client of channel.clients) this.send(client, ': heartbeat\n\n');
  }

  private channelOf(itemCode: string, latestMessageId: number): ItemChannel {
    let channel = this.channels.get(itemCode);
    if (!channel) {
      channel = { itemCode, clients: new Set(), cursor: latestMessageId, fetching: false, again: false };
      this.channels.set(itemCode, channel);
    }
    return channel;
  }

  private remove(channel: ItemChannel, client: StreamClient): void {
    channel.clients.delete(client);
    if (channel.clients.size === 0 && this.channels.get(channel.itemCode) === channel) this.channels.delete(channel.itemCode);
  }

  // One fetch at a time per item; events during it ask for one more afterwards.
  private async fetchNew(channel: ItemChannel): Promise<void> {
    if (channel.fetching) {
      channel.again = true;
      return;
    }
    channel.fetching = true;
    try {
      do {
        channel.again = false;
        const messages = await this.rpc.request('messaging.rpc.messages-after', { code: channel.itemCode, after: channel.cursor });
        for (const message of messages) channel.cursor = Math.max(channel.cursor, message.id);
        for (const client of channel.clients) this.deliver(client, messages);
      } while (channel.again && channel.clients.size > 0);
    } catch (error) {
      // The item is gone (its deletion's event may be missed): nobody may read it any more.
      if (error instanceof RpcError && error.body.status === 404) return this.itemDeleted(channel.itemCode);
      this.logger.warn(`Fetching new messages for a stream failed: ${(error as Error).message}`);
      setTimeout(() => {
        if (this.channels.get(channel.itemCode) === channel) void this.fetchNew(channel);
      }, RETRY_FETCH_MS).unref();
    } finally {
      channel.fetching = false;
    }
  }

  // The messages a receipts event changed (and any newer ones, which go the usual way). A failure is only logged:
  // polls bring the change too, and the next receipts event tries again.
  private async fetchChanged(channel: ItemChannel, conversationId: string, version: number): Promise<void> {
    let messages: ThreadMessage[];
    try {
      messages = await this.rpc.request('messaging.rpc.messages-after', { code: channel.itemCode, after: version - 1 });
    } catch (error) {
      this.logger.warn(`Fetching changed messages for a stream failed: ${(error as Error).message}`);
      return;
    }
    const changed = messages.filter((message) => message.conversation_id === conversationId && message.version >= version);
    for (const client of channel.clients) {
      if (client.held || (client.conversationId !== null && client.conversationId !== conversationId)) continue;
      for (const message of changed) {
        if (message.id <= client.lastSentId) this.send(client, `event: message\ndata: ${JSON.stringify(asSeenBy(client, message))}\n\n`);
      }
    }
  }

  // A reconnecting client's missed messages, fetched once for it; the item's fetches meanwhile are held back and
  // sent after, so the client sees messages in order.
  private async catchUp(channel: ItemChannel, client: StreamClient): Promise<void> {
    client.held = [];
    try {
      const missed = await this.rpc.request('messaging.rpc.messages-after', { code: channel.itemCode, after: client.lastSentId });
      const held = client.held;
      client.held = null;
      this.deliver(client, [...missed, ...held]);
    } catch (error) {
      // The client reconnects with its Last-Event-ID and tries again.
      this.logger.warn(`Resuming a message stream failed: ${(error as Error).message}`);
      client.sink.end();
    }
  }

  private deliver(client: StreamClient, messages: ThreadMessage[]): void {
    if (client.held) {
      client.held.push(...messages);
      return;
    }
    for (const message of messages) {
      if (message.id <= client.lastSentId) continue;
      if (client.conversationId !== null && message.conversation_id !== client.conversationId) continue;
      client.lastSentId = message.id;
      this.send(client, `id: ${message.id}\nevent: message\ndata: ${JSON.stringify(asSeenBy(client, message))}\n\n`);
    }
  }

  private send(client: StreamClient, chunk: string): void {
    if (client.sink.write(chunk) > MAX_BUFFERED_BYTES) client.sink.end();
  }
}

/**
 * A message as `GET /messages` shows it to the stream's reader: a finder without the owner's finder labels, and the
 * other side of its writer with the contact details messaging masked (`other_side`), which never leaves the gateway.
 */
export function asSeenBy(client: Pick<StreamClient, 'conversationId'>, message: ThreadMessage): Message {
  const { other_side: otherSide, ...asWritten } = message;
  const reader = client.conversationId === null ? 'owner' : 'finder';
  const seen: Message = otherSide && message.author !== reader ? { ...asWritten, content: otherSide.content, masked: otherSide.masked } : asWritten;
  if (reader === 'owner' || seen.finder === undefined) return seen;
  const { finder: _label, ...seenByFinder } = seen;
  return seenByFinder;
}
