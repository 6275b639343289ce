import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Database, prepared, type Transaction } from '@homing/platform';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A new reply token: 128 random bits as 26 characters of lower-case base32 (mail systems may fold the case). */
export function newReplyToken(): string {
  const bytes = randomBytes(16);
  let bits = 0;
  let value = 0;
  let token = '';
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      token += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? token + BASE32[(value << (5 - bits)) & 31] : token;
}

/** What is kept of a reply token: its SHA-256 (random tokens need no salt). */
export function hashReplyToken(token: string): string {
  return createHash('sha256').update(token.toLowerCase()).digest('base64url');
}

export interface ReplyAddressRow {
  conversation_id: string;
  recipient: 'finder' | 'owner';
  user_id: string | null;
}

// Every mail to an owner mints its reply address (B3): kept prepared on each connection.
const MINT_FOR_OWNER = prepared(
  `INSERT INTO reply_addresses (token_hash, conversation_id, recipient, user_id)
   SELECT $1, c.id, 'owner', $3::uuid FROM conversations c
     JOIN item_owners o ON o.item_code = c.item_code AND o.deleted_at IS NULL AND o.owner_user_id IS NOT NULL
    WHERE c.id = $2 AND ($3::uuid = o.owner_user_id OR $3::uuid = ANY(o.co_owner_user_ids))`,
);

// An owner's e-mail about a finder's messages asks, as it is made, for the newest of them still unread from the one that
// opened its window, and its reply address only when there is one (a mail not sent mints none): one statement, one
// round trip before the mail goes (B3), where they were two in turn. The insert is MINT_FOR_OWNER's.
const LATEST_UNREAD_WITH_OWNER_ADDRESS = prepared(
  `WITH unread AS (
     SELECT max(id)::float8 AS id FROM messages WHERE conversation_id = $2 AND author = 'finder' AND read_at IS NULL AND id >= $4
   ), minted AS (
     INSERT INTO reply_addresses (token_hash, conversation_id, recipient, user_id)
     SELECT $1, c.id, 'owner', $3::uuid FROM conversations c
       JOIN item_owners o ON o.item_code = c.item_code AND o.deleted_at IS NULL AND o.owner_user_id IS NOT NULL
      WHERE c.id = $2 AND ($3::uuid = o.owner_user_id OR $3::uuid = ANY(o.co_owner_user_ids)) AND (SELECT id FROM unread) IS NOT NULL
     RETURNING 1
   )
   SELECT (SELECT id FROM unread) AS id, EXISTS (SELECT 1 FROM minted) AS minted`,
);

/** The relay's reply addresses: minted for an e-mail, looked up when a reply arrives. */
@Injectable()
export class ReplyAddressesRepository {
  constructor(private readonly database: Database) {}

  /** A new address of the conversation for its finder; answers its token, which is kept only as a hash. */
  async mintForFinder(conversationId: string): Promise<string> {
    const token = newReplyToken();
    await this.database.affected("INSERT INTO reply_addresses (token_hash, conversation_id, recipient) VALUES ($1, $2, 'finder')", [hashReplyToken(token), conversationId]);
    return token;
  }

  /**
   * A new address of the conversation for `userId`, when they own or co-own its item (activated, not deleted); null
   * otherwise (the item changed hands, or the conversation is gone). The check and the insert are one statement: it
   * runs for every mail to an owner (B3).
   */
  async mintForOwner(conversationId: string, userId: string): Promise<string | null> {
    const token = newReplyToken();
    const minted = await this.database.affected(
      MINT_FOR_OWNER,
      [hashReplyToken(token), conversationId, userId],
    );
    return minted > 0 ? token : null;
  }

  /**
   * The newest finder's message of the conversation from `fromId` on that the owner has not read (null when none), and,
   * when there is one, a new address of the conversation for `userId` as `mintForOwner` makes it (null when they no
   * longer own or co-own its item), in one statement.
   */
  async latestUnreadWithOwnerAddress(conversationId: string, userId: string, fromId: number): Promise<{ latestUnreadMessageId: number | null; replyToken: string | null }> {
    const token = newReplyToken();
    const row = (await this.database.one<{ id: number | null; minted: boolean }>(LATEST_UNREAD_WITH_OWNER_ADDRESS, [hashReplyToken(token), conversationId, userId, fromId])) as { id: number | null; minted: boolean };
    return { latestUnreadMessageId: row.id, replyToken: row.minted ? token : null };
  }

  /**
   * An erased account's reply addresses: those of its own items' conversations went with them; these are a co-owner's,
   * on conversations that stay their owner's.
   */
  async forgetUser(transaction: Transaction, userId: string): Promise<void> {
    await this.database.affected('DELETE FROM reply_addresses WHERE user_id = $1', [userId], transaction);
  }

  async find(token: string): Promise<ReplyAddressRow | null> {
    const row = await this.database.one<ReplyAddressRow>('SELECT conversation_id, recipient, user_id FROM reply_addresses WHERE token_hash = $1', [hashReplyToken(token)]);
    return row ?? null;
  }
}
