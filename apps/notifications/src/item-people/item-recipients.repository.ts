import { Injectable } from '@nestjs/common';
import type { ItemNotificationSettings } from '@homing/contracts';
import { Database, prepared } from '@homing/platform';
import type { ItemPeople } from './item-people.repository';

/** What one statement reads of an item's news' recipients (`ItemRecipientsRepository.read`). */
export interface ItemRecipientsRead {
  /** The item's people; null when items has told nothing of them yet. */
  people: ItemPeople | null;
  /** The settings rows of the item, by user id (a person without one is told both ways). */
  settings: Map<string, ItemNotificationSettings>;
  /** The push subscriptions of each of its people (or of the event's owner, before items told of the people), in order. */
  subscriptions: Map<string, string[]>;
}

interface RecipientsRow {
  known: boolean;
  owner_user_id: string | null;
  co_owner_user_ids: string[] | null;
  settings: Array<[string, boolean, boolean]>;
  subscriptions: Array<[string, string]>;
}

// Read for every notification of an item's people (B3): the people, the item's settings rows and, when asked, the
// people's push subscriptions, in one round trip where they were three in turn (the settings named the people, the
// subscriptions each person). The people are the projection's, or the event's owner while the item has no row; who
// of them is told is decided by `peopleToTell`, the same rule as ever. Kept prepared on each connection.
const RECIPIENTS_OF = prepared(
  `SELECT p.item_code IS NOT NULL AS known, p.owner_user_id, p.co_owner_user_ids,
          COALESCE((SELECT json_agg(json_build_array(s.user_id, s.email, s.push)) FROM item_notification_settings s WHERE s.item_code = $1), '[]') AS settings,
          CASE WHEN $3::boolean THEN COALESCE((
            SELECT json_agg(json_build_array(ps.user_id, ps.id) ORDER BY ps.created_at, ps.id) FROM push_subscriptions ps
             WHERE ps.user_id = ANY(CASE WHEN p.item_code IS NULL THEN ARRAY[$2::uuid] ELSE array_prepend(p.owner_user_id, p.co_owner_user_ids) END)
          ), '[]') ELSE '[]' END AS subscriptions
     FROM (VALUES (1)) AS one (x) LEFT JOIN item_people p ON p.item_code = $1`,
);

/**
 * Reads `item_people`, `item_notification_settings` and `push_subscriptions` together for the hot path of every
 * notification; each table's own repository still holds every write and every other read.
 */
@Injectable()
export class ItemRecipientsRepository {
  constructor(private readonly database: Database) {}

  async read(itemCode: string, eventOwnerUserId: string, { withSubscriptions }: { withSubscriptions: boolean }): Promise<ItemRecipientsRead> {
    const row = (await this.database.one<RecipientsRow>(RECIPIENTS_OF, [itemCode, eventOwnerUserId, withSubscriptions])) as RecipientsRow;
    const subscriptions = new Map<string, string[]>();
    for (const [userId, id] of row.subscriptions) {
      const ids = subscriptions.get(userId);
      if (ids) ids.push(id);
      else subscriptions.set(userId, [id]);
    }
    return {
      people: row.known ? { ownerUserId: row.owner_user_id, coOwnerUserIds: row.co_owner_user_ids ?? [] } : null,
      settings: new Map(row.settings.map(([userId, email, push]) => [userId, { email, push }])),
      subscriptions,
    };
  }
}
