import { Injectable } from '@nestjs/common';
import { Database } from '@homing/platform';

export interface ConversationExportRow {
  id: string;
  itemCode: string;
  startedAt: Date;
  lastMessageAt: Date | null;
  finderLeftAnAddress: boolean;
  /** Both sides agreed to share contact details: the finder's messages are exported as written. */
  contactShared: boolean;
}

export interface MessageExportRow {
  conversationId: string;
  author: 'owner' | 'finder';
  content: string;
  createdAt: Date;
  deliveredAt: Date | null;
  readAt: Date | null;
  locationLat: number | null;
  locationLon: number | null;
  locationAccuracyM: number | null;
  locationPrecise: boolean | null;
}

/**
 * Reads the conversations of an owner's items for their export, the items they co-own with them (they read and answer
 * those as the owner does). The finder's address, language and token hashes are
 * never selected: they are the finder's data, not the owner's.
 */
@Injectable()
export class ExportRepository {
  constructor(private readonly database: Database) {}

  conversationsOfOwner(ownerUserId: string): Promise<ConversationExportRow[]> {
    return this.database.rows<ConversationExportRow>(
      `SELECT c.id, c.item_code AS "itemCode", c.created_at AS "startedAt", c.last_message_at AS "lastMessageAt",
              c.finder_email IS NOT NULL AS "finderLeftAnAddress",
              (c.finder_consented_at IS NOT NULL AND c.owner_consented_at IS NOT NULL) AS "contactShared"
       FROM conversations c JOIN item_owners o ON o.item_code = c.item_code
       WHERE (o.owner_user_id = $1 OR o.co_owner_user_ids @> ARRAY[$1::uuid]) AND o.deleted_at IS NULL
       ORDER BY c.item_code, c.created_at, c.id`,
      [ownerUserId],
    );
  }

  messagesOf(conversationIds: string[]): Promise<MessageExportRow[]> {
    if (conversationIds.length === 0) return Promise.resolve([]);
    return this.database.rows<MessageExportRow>(
      `SELECT conversation_id AS "conversationId", author, content, created_at AS "createdAt", delivered_at AS "deliveredAt", read_at AS "readAt",
              location_lat AS "locationLat", location_lon AS "locationLon", location_accuracy_m AS "locationAccuracyM", location_precise AS "locationPrecise"
       FROM messages WHERE conversation_id = ANY($1::uuid[]) ORDER BY id`,
      [conversationIds],
    );
  }
}
