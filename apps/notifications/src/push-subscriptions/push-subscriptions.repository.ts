import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PUSH_SUBSCRIPTIONS_MAX, type PushSubscriber, type PushSubscriptionBody } from '@homing/contracts';

export interface StoredPushSubscription {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

const columnOf = (subscriber: PushSubscriber) => ('userId' in subscriber ? 'user_id' : 'conversation_id');
const idOf = (subscriber: PushSubscriber) => ('userId' in subscriber ? subscriber.userId : subscriber.conversationId);

/** The `push_subscriptions` table. Plain SQL like the service's other tables: upserts on partial unique indexes. */
@Injectable()
export class PushSubscriptionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Stores a subscription (a known endpoint gets its new keys) and keeps the subscriber's newest 16: a browser that
   * subscribes again after clearing its data leaves a dead subscription behind, which the oldest likely is.
   */
  async save(subscriber: PushSubscriber, subscription: PushSubscriptionBody): Promise<void> {
    const column = columnOf(subscriber);
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO push_subscriptions (${column}, endpoint, p256dh, auth) VALUES ($1, $2, $3, $4)
         ON CONFLICT (${column}, endpoint) WHERE ${column} IS NOT NULL
         DO UPDATE SET p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth, updated_at = now()`,
        [idOf(subscriber), subscription.endpoint, subscription.keys.p256dh, subscription.keys.auth],
      );
      await manager.query(
        `DELETE FROM push_subscriptions WHERE id IN (
           SELECT id FROM push_subscriptions WHERE ${column} = $1 ORDER BY updated_at DESC, id OFFSET $2)`,
        [idOf(subscriber), PUSH_SUBSCRIPTIONS_MAX],
      );
    });
  }

  async remove(subscriber: PushSubscriber, endpoint: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM push_subscriptions WHERE ${columnOf(subscriber)} = $1 AND endpoint = $2`, [idOf(subscriber), endpoint]);
  }

  /** Replaces a subscription the browser changed (pushsubscriptionchange): the old endpoint goes, the new one is kept. */
  async replace(subscriber: PushSubscriber, oldEndpoint: string | undefined, subscription: PushSubscriptionBody): Promise<void> {
    if (oldEndpoint && oldEndpoint !== subscription.endpoint) await this.remove(subscriber, oldEndpoint);
    await this.save(subscriber, subscription);
  }

  async listFor(subscriber: PushSubscriber): Promise<Array<{ id: string }>> {
    return this.dataSource.query(`SELECT id FROM push_subscriptions WHERE ${columnOf(subscriber)} = $1 ORDER BY created_at, id`, [idOf(subscriber)]);
  }

  async findById(id: string): Promise<StoredPushSubscription | null> {
    const rows: StoredPushSubscription[] = await this.dataSource.query('SELECT id, endpoint, p256dh, auth FROM push_subscriptions WHERE id = $1', [id]);
    return rows[0] ?? null;
  }

  /** A subscription the push service says is gone (404/410), or one that names a host no longer allowed. */
  async deleteById(id: string): Promise<void> {
    await this.dataSource.query('DELETE FROM push_subscriptions WHERE id = $1', [id]);
  }
}
