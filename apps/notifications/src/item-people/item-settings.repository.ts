import { Injectable } from '@nestjs/common';
import type { ItemNotificationSettings } from '@homing/contracts';
import { Database, prepared, type Transaction } from '@homing/platform';

/** A person of an item who has no row is told both ways: nothing is stored until they turn one off. */
export const DEFAULT_ITEM_SETTINGS: ItemNotificationSettings = Object.freeze({ email: true, push: true });

interface SettingsRow {
  user_id: string;
  email: boolean;
  push: boolean;
}

// A person's settings as their item's page shows them (notifications' consumers read them with the item's people,
// ItemRecipientsRepository).
const SETTINGS_OF = prepared('SELECT user_id, email, push FROM item_notification_settings WHERE item_code = $1 AND user_id = ANY($2::uuid[])');

/** The only file that writes `item_notification_settings`; ItemRecipientsRepository reads it with the item's people. */
@Injectable()
export class ItemSettingsRepository {
  constructor(private readonly database: Database) {}

  /** Each of these people's settings for the item, the default for those without a row. */
  async settingsOf(itemCode: string, userIds: readonly string[]): Promise<Map<string, ItemNotificationSettings>> {
    const settings = new Map(userIds.map((userId) => [userId, DEFAULT_ITEM_SETTINGS]));
    if (userIds.length === 0) return settings;
    const rows = await this.database.rows<SettingsRow>(
      SETTINGS_OF,
      [itemCode, userIds],
    );
    for (const row of rows) settings.set(row.user_id, { email: row.email, push: row.push });
    return settings;
  }

  /**
   * Changes what is given and keeps the rest (the default for a new row), in one statement, so two changes at once
   * (e-mail from one tab, push from another) both stay. Returns the settings now in force.
   */
  async set(itemCode: string, userId: string, change: Partial<ItemNotificationSettings>): Promise<ItemNotificationSettings> {
    const row = await this.database.one<SettingsRow>(
      `INSERT INTO item_notification_settings (item_code, user_id, email, push, updated_at) VALUES ($1, $2, COALESCE($3, true), COALESCE($4, true), now())
       ON CONFLICT (item_code, user_id) DO UPDATE
         SET email = COALESCE($3, item_notification_settings.email), push = COALESCE($4, item_notification_settings.push), updated_at = now()
       RETURNING user_id, email, push`,
      [itemCode, userId, change.email ?? null, change.push ?? null],
    );
    if (!row) throw new Error('an upsert returns its row');
    return { email: row.email, push: row.push };
  }

  /** A deleted item's settings, everyone's. */
  async deleteOfItem(transaction: Transaction, itemCode: string): Promise<void> {
    await this.database.affected('DELETE FROM item_notification_settings WHERE item_code = $1', [itemCode], transaction);
  }

  /**
   * A transferred item's settings as they were when it passed (`at`): the next owner starts with the defaults, and a
   * choice they made after the transfer, before this event came, stays.
   */
  async deleteOfItemBefore(transaction: Transaction, itemCode: string, at: Date): Promise<void> {
    await this.database.affected('DELETE FROM item_notification_settings WHERE item_code = $1 AND updated_at <= $2', [itemCode, at], transaction);
  }

  /**
   * The settings of the item's people who are no longer of it (a co-owner removed or gone) as they were at `at`: one
   * added again later, who chose before this event came, keeps that choice.
   */
  async deleteOfOthersBefore(transaction: Transaction, itemCode: string, userIds: readonly string[], at: Date): Promise<void> {
    await this.database.affected(
      'DELETE FROM item_notification_settings WHERE item_code = $1 AND NOT (user_id = ANY($2::uuid[])) AND updated_at <= $3',
      [itemCode, userIds, at],
      transaction,
    );
  }

  /** An erased user's settings, on every item. */
  async deleteOfUser(transaction: Transaction, userId: string): Promise<void> {
    await this.database.affected('DELETE FROM item_notification_settings WHERE user_id = $1', [userId], transaction);
  }
}
