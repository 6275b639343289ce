import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { DomainEvent, EventSubject } from '@homing/contracts';
import { decodeEvent, FanOutSubscription, NatsClient } from '@homing/platform';
import { MessageStreams } from './message-streams';
import { ThreadAccessCache } from './thread-access-cache';
import { ThreadWatermarks } from './thread-watermarks';

/** What the gateway follows of messaging's and items' events to answer polls and feed streams. */
export const THREAD_EVENT_SUBJECTS = [
  'messaging.message.created.v1',
  'messaging.messages.receipts.v1',
  'messaging.conversation.cleared.v1',
  'messaging.finder.left.v1',
  'items.item.people-changed.v1',
  'items.item.deleted.v1',
] as const satisfies readonly EventSubject[];

/**
 * The gateway's one ear on thread events: a fan-out subscription for the whole process (every replica hears every
 * event; nothing durable: this state is only a cache, rebuilt from what comes next), which keeps the watermarks and
 * the access cache current and feeds every open message stream. Whenever events may have been missed (disconnect,
 * reconnect, slow consumer, a failed subscription), what was learnt is forgotten and polls go to messaging; once every
 * subscription is back, open streams fetch what they may have missed.
 */
@Injectable()
export class ThreadEvents implements OnModuleInit, OnApplicationShutdown {
  private subscription?: FanOutSubscription;

  constructor(
    private readonly nats: NatsClient,
    readonly watermarks: ThreadWatermarks,
    readonly access: ThreadAccessCache,
    private readonly streams: MessageStreams,
  ) {}

  onModuleInit(): void {
    // The gateway serves (and polls fall through to messaging) until the subscriptions are in place.
    this.subscription = FanOutSubscription.open(this.nats, THREAD_EVENT_SUBJECTS, {
      onMessage: (msg) => this.apply(decodeEvent(msg)),
      onGap: () => {
        this.watermarks.forgetAll();
        this.access.forgetAll();
      },
      onLive: () => this.streams.resync(),
    }, { name: ThreadEvents.name });
  }

  onApplicationShutdown(): void {
    this.subscription?.close();
  }

  /** One event, as it came off NATS. */
  private apply(event: DomainEvent): void {
    // Watermarks only learn while every event is heard: from a partial view they would answer "nothing new" wrongly.
    const learning = this.subscription?.live === true;
    switch (event.subject) {
      case 'messaging.message.created.v1':
        if (learning) this.watermarks.messageCreated(event.data.itemCode, event.data.conversationId, event.data.messageId);
        this.streams.messageCreated(event.data.itemCode, event.data.conversationId, event.data.messageId);
        break;
      case 'messaging.messages.receipts.v1':
        // Receipts changed (delivered, read): polls below the change's version have something to fetch again.
        if (learning) this.watermarks.receiptsChanged(event.data.itemCode, event.data.conversationId, event.version);
        this.streams.receiptsChanged(event.data.itemCode, event.data.conversationId, event.version);
        break;
      case 'messaging.conversation.cleared.v1':
        if (learning) this.watermarks.conversationsCleared(event.data.itemCode, event.version);
        // Finders' tokens of the item are dead now.
        this.access.forgetItem(event.data.itemCode);
        this.streams.conversationsCleared(event.data.itemCode, event.version);
        break;
      case 'messaging.finder.left.v1':
        // The finder's messages are gone: a poll below the change's version asks messaging again.
        if (learning) this.watermarks.receiptsChanged(event.data.itemCode, event.data.conversationId, event.version);
        // Their tokens are dead now.
        this.access.forgetItem(event.data.itemCode);
        this.streams.finderLeft(event.data.itemCode, event.data.conversationId, event.version);
        break;
      case 'items.item.people-changed.v1':
        // Whoever was removed reads no more: their cached access goes, and their open streams end. A transfer publishes
        // this event too (in the same transaction), with the new owner alone.
        this.access.forgetItem(event.data.code);
        this.streams.peopleChanged(event.data.code, new Set([event.data.ownerUserId, ...event.data.coOwnerUserIds]));
        break;
      case 'items.item.deleted.v1':
        this.watermarks.forget(event.data.code);
        this.access.forgetItem(event.data.code);
        this.streams.itemDeleted(event.data.code);
        break;
    }
  }
}
