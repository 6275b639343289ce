import { Injectable } from '@nestjs/common';
import { Database } from '@homing/platform';

export interface PushSubscriptionExportRow {
  id: string;
  endpoint: string;
  createdAt: Date;
}

export interface DeliveryExportRow {
  kind: string;
  channel: string;
  status: string;
  createdAt: Date;
  sentAt: Date | null;
}

/** Reads a user's push subscriptions and delivery records for their export (no keys, no error texts). */
@Injectable()
export class ExportRepository {
  constructor(private readonly database: Database) {}

  pushSubscriptionsOf(userId: string): Promise<PushSubscriptionExportRow[]> {
    return this.database.rows<PushSubscriptionExportRow>(
      `SELECT id, endpoint, created_at AS "createdAt" FROM push_subscriptions WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
  }

  /**
   * Deliveries whose job id ends in one of these recipient ids (`<channel>_<event id>_<recipient id>`): the user's
   * own id for e-mails, their subscriptions' ids for pushes. Every id here is a UUID, 36 characters.
   */
  deliveriesTo(recipientIds: string[]): Promise<DeliveryExportRow[]> {
    return this.database.rows<DeliveryExportRow>(
      `SELECT kind, channel, status, created_at AS "createdAt", sent_at AS "sentAt"
       FROM deliveries WHERE right(job_id, 37) = ANY(SELECT '_' || id FROM unnest($1::text[]) AS id)
       ORDER BY created_at, job_id`,
      [recipientIds],
    );
  }

  itemSettingsOf(userId: string): Promise<Array<{ itemCode: string; email: boolean; push: boolean; updatedAt: Date }>> {
    return this.database.rows(
      `SELECT item_code AS "itemCode", email, push, updated_at AS "updatedAt" FROM item_notification_settings WHERE user_id = $1 ORDER BY item_code`,
      [userId],
    );
  }
}
