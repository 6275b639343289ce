import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { EventSubject } from '@homing/contracts';
import { decodeEvent, FanOutSubscription, NatsClient } from '@homing/platform';
import { PublicItemCache } from './public-item-cache';

/**
 * Every items event that changes what a scan shows: claimed (activated, claimed_at, owner), renamed or re-rewarded,
 * a new photo, deleted, its people changed (co-owners see it as the owner does). A created item was never scanned before it existed (unknown codes are not kept).
 */
export const PUBLIC_ITEM_EVENT_SUBJECTS = [
  'items.item.claimed.v1',
  'items.item.updated.v1',
  'items.item.photo-changed.v1',
  'items.item.deleted.v1',
  // Who reads the item as its owner: co-owners added or gone, a new owner.
  'items.item.people-changed.v1',
] as const satisfies readonly EventSubject[];

/**
 * Keeps the scan cache current from items' events, which every gateway replica hears (a fan-out subscription, as
 * `ThreadEvents` has for threads). The cache keeps entries only while every event is heard, and is emptied whenever
 * events may have been missed (disconnect, reconnect, slow consumer, a failed subscription).
 */
@Injectable()
export class ItemEvents implements OnModuleInit, OnApplicationShutdown {
  private subscription?: FanOutSubscription;

  constructor(
    private readonly nats: NatsClient,
    private readonly cache: PublicItemCache,
  ) {}

  onModuleInit(): void {
    // Scans go to items, uncached, until the subscriptions are in place.
    this.subscription = FanOutSubscription.open(this.nats, PUBLIC_ITEM_EVENT_SUBJECTS, {
      onMessage: (msg) => {
        const { data } = decodeEvent(msg);
        if ('code' in data) this.cache.invalidate(data.code);
      },
      onGap: () => this.cache.disable(),
      onLive: () => this.cache.enable(),
    }, { name: ItemEvents.name });
  }

  onApplicationShutdown(): void {
    this.cache.disable();
    this.subscription?.close();
  }
}
