import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { EventSubject } from '@homing/contracts';
import { decodeEvent, NatsClient } from '@homing/platform';
import { PublicItemCache } from './public-item-cache';

/**
 * Every items event that changes what a scan shows: claimed (activated, claimed_at, owner), renamed or re-rewarded,
 * a new photo, deleted. A created item was never scanned before it existed (unknown codes are not kept).
 */
export const PUBLIC_ITEM_EVENT_SUBJECTS = ['items.item.claimed.v1', 'items.item.updated.v1', 'items.item.photo-changed.v1', 'items.item.deleted.v1'] as const satisfies readonly EventSubject[];

/**
 * Keeps the scan cache current: a plain NATS subscription per subject for the whole process, not a queue group, so
 * every gateway replica hears every change (as `ThreadEvents` does for threads). Nothing durable: the cache is
 * only kept while the subscriptions are known to be in place, and dropped whenever events may have been missed.
 */
@Injectable()
export class ItemEvents implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ItemEvents.name);
  private subscriptions: Subscription[] = [];

  constructor(
    private readonly nats: NatsClient,
    private readonly cache: PublicItemCache,
  ) {}

  onModuleInit(): void {
    // Not awaited: scans go to items, uncached, until NATS is there.
    this.nats.connect().then(
      (connection) => this.listen(connection),
      () => undefined,
    );
  }

  onApplicationShutdown(): void {
    this.cache.disable();
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.subscriptions = [];
  }

  private listen(connection: NatsConnection): void {
    this.subscriptions = PUBLIC_ITEM_EVENT_SUBJECTS.map((subject) =>
      connection.subscribe(this.nats.namespace.subject(subject), {
        callback: (error, msg) => {
          // A subscription error (a slow consumer's dropped messages among them) may have cost events.
          if (error) return this.cache.disable();
          try {
            const { data } = decodeEvent(msg);
            if ('code' in data) this.cache.invalidate(data.code);
          } catch (failure) {
            this.logger.warn(`Ignoring a malformed ${subject} event: ${(failure as Error).message}`);
          }
        },
      }),
    );
    void this.enableOnceSubscribed(connection);
    void this.followConnection(connection);
  }

  // The server has the subscriptions once a flush comes back: only from then on is every change heard.
  private async enableOnceSubscribed(connection: NatsConnection): Promise<void> {
    try {
      await connection.flush();
      this.cache.enable();
    } catch {
      // Disconnected meanwhile: the reconnect enables it again.
    }
  }

  // Core NATS delivers nothing while disconnected: whatever is kept may be stale, so it is dropped, and kept again
  // once the subscriptions are back in place (the client renews them on reconnect).
  private async followConnection(connection: NatsConnection): Promise<void> {
    for await (const status of connection.status()) {
      if (status.type === 'disconnect') this.cache.disable();
      // The client dropped messages of a subscription that fell behind: start again from empty.
      if (status.type === 'slowConsumer') this.cache.enable();
      if (status.type === 'reconnect') {
        this.cache.disable();
        void this.enableOnceSubscribed(connection);
      }
    }
  }
}
