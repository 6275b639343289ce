import { Injectable } from '@nestjs/common';
import { PUSH_SUBSCRIPTIONS_MAX, type PushSubscriber, type PushSubscriptionBody } from '@homing/contracts';
import { Database, prepared, type Transaction } from '@homing/platform';

export interface StoredPushSubscription {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  /** The finder's conversation it tells of; null for an owner's subscription. */
  conversationId: string | null;
}

const columnOf = (subscriber: PushSubscriber) => ('userId' in subscriber ? 'user_id' : 'conversation_id');
const idOf = (subscriber: PushSubscriber) => ('userId' in subscriber ? subscriber.userId : subscriber.conversationId);
// A finder's are read for every reply pushed to them (an owner's come with their item's people: ItemRecipientsRepository):
// each kept prepared on each connection.
const LIST_FOR = {
  user_id: prepared('SELECT id FROM push_subscriptions WHERE user_id = $1 ORDER BY created_at, id'),
  conversation_id: prepared('SELECT id FROM push_subscriptions WHERE conversation_id = $1 ORDER BY created_at, id'),
};

/**
 * Deletes the push subscriptions `condition` names (on `push_subscriptions`) with their delivery records, in one
 * statement; answers how many subscriptions went. A record names the browser by the subscription's id alone (the job
 * id's last part), so once the subscription is gone nothing would find it: neither the user's export nor an erasure.
 */
function deletingWithDeliveries(condition: string): string {
  return `WITH gone AS (DELETE FROM push_subscriptions WHERE ${condition} RETURNING id),
               records AS (DELETE FROM deliveries WHERE right(job_id, 37) = ANY(SELECT '_' || id::text FROM gone))
          SELECT count(*)::int AS count FROM gone`;
}

/** The `push_subscriptions` table. Plain SQL like the service's other tables: upserts on partial unique indexes. */
@Injectable()
export class PushSubscriptionsRepository {
  constructor(private readonly database: Database) {}

  /**
   * Stores a subscription (a known endpoint gets its new keys) and keeps the subscriber's newest 16: a browser that
   * subscribes again after clearing its data leaves a dead subscription behind, which the oldest likely is. An owner's
   * endpoint is taken from any other owner who had it: it is one browser, now logged in as this owner (a shared
   * computer, a session that ended without a log-out), where the owner before must no longer be told of their items.
   * `sessionId`: the owner's session that registers it (kept, and replaced by a re-registration's), whose revocation
   * deletes it (`deleteOfSessions`); a finder's has none.
   */
  async save(subscriber: PushSubscriber, subscription: PushSubscriptionBody, sessionId?: string): Promise<void> {
    const column = columnOf(subscriber);
    const session = column === 'user_id' ? (sessionId ?? null) : null;
    await this.database.transaction(async (transaction) => {
      if (column === 'user_id') {
        await this.deleting(deletingWithDeliveries('endpoint = $1 AND user_id IS NOT NULL AND user_id <> $2'), [subscription.endpoint, idOf(subscriber)], transaction);
      }
      await this.database.affected(
        `INSERT INTO push_subscriptions (${column}, endpoint, p256dh, auth, session_id) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (${column}, endpoint) WHERE ${column} IS NOT NULL
         DO UPDATE SET p256dh = EXCLUDED.p256dh, auth = EXCLUDED.auth, session_id = EXCLUDED.session_id, updated_at = now()`,
        [idOf(subscriber), subscription.endpoint, subscription.keys.p256dh, subscription.keys.auth, session],
        transaction,
      );
      await this.deleting(
        deletingWithDeliveries(`id IN (SELECT id FROM push_subscriptions WHERE ${column} = $1 ORDER BY updated_at DESC, id OFFSET $2)`),
        [idOf(subscriber), PUSH_SUBSCRIPTIONS_MAX],
        transaction,
      );
    });
  }

  async remove(subscriber: PushSubscriber, endpoint: string): Promise<void> {
    await this.deleting(deletingWithDeliveries(`${columnOf(subscriber)} = $1 AND endpoint = $2`), [idOf(subscriber), endpoint]);
  }

  /** Replaces a subscription the browser changed (pushsubscriptionchange): the old endpoint goes, the new one is kept. */
  async replace(subscriber: PushSubscriber, oldEndpoint: string | undefined, subscription: PushSubscriptionBody, sessionId?: string): Promise<void> {
    if (oldEndpoint && oldEndpoint !== subscription.endpoint) await this.remove(subscriber, oldEndpoint);
    await this.save(subscriber, subscription, sessionId);
  }

  async listFor(subscriber: PushSubscriber, transaction?: Transaction): Promise<Array<{ id: string }>> {
    return this.database.rows<{ id: string }>(LIST_FOR[columnOf(subscriber)], [idOf(subscriber)], transaction);
  }

  async findById(id: string): Promise<StoredPushSubscription | null> {
    return (await this.database.one<StoredPushSubscription>('SELECT id, endpoint, p256dh, auth, conversation_id AS "conversationId" FROM push_subscriptions WHERE id = $1', [id])) ?? null;
  }

  /** Every subscription of a subscriber (a finder who deleted their conversation, an erased user); returns how many. */
  deleteAllOf(subscriber: PushSubscriber, transaction?: Transaction): Promise<number> {
    return this.deleting(deletingWithDeliveries(`${columnOf(subscriber)} = $1`), [idOf(subscriber)], transaction);
  }

  /** The user's subscriptions registered from these sessions, which identity revoked; returns how many. Never a finder's. */
  deleteOfSessions(userId: string, sessionIds: string[], transaction?: Transaction): Promise<number> {
    return this.deleting(deletingWithDeliveries('user_id = $1 AND session_id = ANY($2::uuid[])'), [userId, sessionIds], transaction);
  }

  /** Every finder's subscription of these conversations (erased whole); returns how many. */
  deleteAllOfConversations(conversationIds: string[], transaction?: Transaction): Promise<number> {
    return this.deleting(deletingWithDeliveries('conversation_id = ANY($1::uuid[])'), [conversationIds], transaction);
  }

  /** A subscription the push service says is gone (404/410), or one that names a host no longer allowed. */
  async deleteById(id: string): Promise<void> {
    await this.deleting(deletingWithDeliveries('id = $1'), [id]);
  }

  private async deleting(sql: string, parameters: unknown[], transaction?: Transaction): Promise<number> {
    return (await this.database.one<{ count: number }>(sql, parameters, transaction))?.count ?? 0;
  }
}
