import { OldestFirst } from '../caching/oldest-first';

// Items whose newest message id is kept; past this the least recently changed are forgotten (and polled from
// messaging again). About 100 bytes each plus their conversations: a few MB at most.
const MAX_ITEMS = 50_000;

interface ItemWatermark {
  /** The newest message id (or reset) of the item seen in events. */
  latest: number;
  /** The newest message id per conversation seen in events. */
  conversations: Map<string, number>;
}

/**
 * The newest message id per item and per conversation, kept current from messaging's events, so that a poll with
 * `after=` at or past it is answered "nothing new" without asking messaging (ARCHITECTURE §8).
 *
 * Only what this process saw in events is known. An item it has seen no event about since it subscribed (start-up,
 * a reconnect, forgotten) is unknown, and such polls go to messaging: never "nothing new" without evidence. Message
 * ids rise across the whole service, so the newest id seen for an item bounds every message of it, older ones
 * included; a conversation with no event seen is bounded by its item.
 */
export class ThreadWatermarks {
  private readonly items = new Map<string, ItemWatermark>();
  private readonly leastRecentlyChanged = new OldestFirst(this.items);

  constructor(private readonly maxItems = MAX_ITEMS) {}

  /** A message was written (`messaging.message.created.v1`). Events may come out of order: the highest id wins. */
  messageCreated(itemCode: string, conversationId: string, messageId: number): void {
    const item = this.touch(itemCode);
    item.latest = Math.max(item.latest, messageId);
    item.conversations.set(conversationId, Math.max(item.conversations.get(conversationId) ?? 0, messageId));
  }

  /**
   * Receipts of a conversation's messages changed (`messaging.messages.receipts.v1`). Its version comes from the
   * message id sequence, and messaging answers `after=` with every message whose receipts changed after it.
   */
  receiptsChanged(itemCode: string, conversationId: string, version: number): void {
    this.messageCreated(itemCode, conversationId, version);
  }

  /**
   * Every conversation of the item was deleted (reset). The reset's version comes from the message id sequence, so
   * every later message is above it; the conversations are gone.
   */
  conversationsCleared(itemCode: string, version: number): void {
    const item = this.touch(itemCode);
    item.latest = Math.max(item.latest, version);
    item.conversations.clear();
  }

  /** The item was deleted, or this process may have missed its events. */
  forget(itemCode: string): void {
    this.items.delete(itemCode);
  }

  /** Events may have been missed (NATS reconnected): nothing is known any more. */
  forgetAll(): void {
    this.items.clear();
  }

  /** Whether this process saw an event about the item since it last forgot. */
  knows(itemCode: string): boolean {
    return this.items.has(itemCode);
  }

  /**
   * Whether nothing newer than `after` can exist in what the caller reads: the item (owner, `conversationId` null)
   * or one conversation (a finder). False when this process does not know.
   */
  isNothingAfter(itemCode: string, conversationId: string | null, after: number): boolean {
    const item = this.items.get(itemCode);
    if (!item) return false;
    const latest = conversationId === null ? item.latest : (item.conversations.get(conversationId) ?? item.latest);
    return after >= latest;
  }

  get size(): number {
    return this.items.size;
  }

  // Map order is insertion order: re-inserting on every change makes the first entry the least recently changed.
  private touch(itemCode: string): ItemWatermark {
    const item = this.items.get(itemCode) ?? { latest: 0, conversations: new Map<string, number>() };
    this.items.delete(itemCode);
    this.items.set(itemCode, item);
    if (this.items.size > this.maxItems) this.leastRecentlyChanged.drop();
    return item;
  }
}
