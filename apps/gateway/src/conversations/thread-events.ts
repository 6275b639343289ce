import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { DomainEvent, EventSubject } from '@homing/contracts';
import { decodeEvent, NatsClient } from '@homing/platform';
import { MessageStreams } from './message-streams';
import { ThreadAccessCache } from './thread-access-cache';
import { ThreadWatermarks } from './thread-watermarks';

/** What the gateway follows of messaging's and items' events to answer polls and feed streams. */
export const THREAD_EVENT_SUBJECTS = ['messaging.message.created.v1', 'messaging.conversation.cleared.v1', 'items.item.deleted.v1'] as const satisfies readonly EventSubject[];

/**
 * The gateway's one ear on thread events: a plain NATS subscription per subject for the whole process (every
 * replica hears every event; nothing durable: this state is only a cache, rebuilt from what comes next), which keeps
 * the watermarks and the access cache current and feeds every open message stream.
 */
@Injectable()
export class ThreadEvents implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ThreadEvents.name);
  private subscriptions: Subscription[] = [];

  constructor(
    private readonly nats: NatsClient,
    readonly watermarks: ThreadWatermarks,
    readonly access: ThreadAccessCache,
    private readonly streams: MessageStreams,
  ) {}

  onModuleInit(): void {
    // Not awaited: the gateway serves (and polls fall through to messaging) until NATS is there.
    this.nats.connect().then(
      (connection) => this.listen(connection),
      () => undefined,
    );
  }

  onApplicationShutdown(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.subscriptions = [];
  }

  /** One event, as it came off NATS. Public for tests. */
  apply(event: DomainEvent): void {
    switch (event.subject) {
      case 'messaging.message.created.v1':
        this.watermarks.messageCreated(event.data.itemCode, event.data.conversationId, event.data.messageId);
        this.streams.messageCreated(event.data.itemCode, event.data.conversationId, event.data.messageId);
        break;
      case 'messaging.conversation.cleared.v1':
        this.watermarks.conversationsCleared(event.data.itemCode, event.version);
        // Finders' tokens of the item are dead now.
        this.access.forgetItem(event.data.itemCode);
        this.streams.conversationsCleared(event.data.itemCode, event.version);
        break;
      case 'items.item.deleted.v1':
        this.watermarks.forget(event.data.code);
        this.access.forgetItem(event.data.code);
        this.streams.itemDeleted(event.data.code);
        break;
    }
  }

  private listen(connection: NatsConnection): void {
    this.subscriptions = THREAD_EVENT_SUBJECTS.map((subject) =>
      connection.subscribe(this.nats.namespace.subject(subject), {
        callback: (error, msg) => {
          if (error) return;
          try {
            this.apply(decodeEvent(msg));
          } catch (failure) {
            this.logger.warn(`Ignoring a malformed ${subject} event: ${(failure as Error).message}`);
          }
        },
      }),
    );
    void this.followConnection(connection);
  }

  // Core NATS delivers nothing while disconnected: what was learnt may be stale, so it is dropped (polls go to
  // messaging until events come again), and open streams fetch what they may have missed once reconnected.
  private async followConnection(connection: NatsConnection): Promise<void> {
    for await (const status of connection.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect') {
        this.watermarks.forgetAll();
        this.access.forgetAll();
      }
      if (status.type === 'reconnect') this.streams.resync();
    }
  }
}
