import { Injectable } from '@nestjs/common';
import type { MessageAuthor, SharedLocation, UserLanguage } from '@homing/contracts';
import { Database, prepared, type RowChange, type Transaction } from '@homing/platform';
import { activatedItemCte } from '../item-owners/item-owners.repository';

export interface ConversationRow {
  id: string;
  item_code: string;
  finder_email: string | null;
  finder_language: UserLanguage;
  created_at: Date;
  last_message_at: Date | null;
  /** When the finder deleted their conversation; null while they are in it. */
  finder_left_at: Date | null;
  /** When each side agreed to share contact details; until both have, the other side reads them masked. */
  finder_consented_at: Date | null;
  owner_consented_at: Date | null;
  /** When the finder handed the item over with the owner's code: closed to new messages. */
  closed_at: Date | null;
}

export interface MessageRow {
  id: number;
  conversation_id: string;
  author: MessageAuthor;
  content: string;
  created_at: Date;
  read_at: Date | null;
  delivered_at: Date | null;
  /** The message id sequence's number drawn at the last change of its receipts; null before any. */
  receipt_version: number | null;
  /** A place the finder shared (all four or none). */
  location_lat: number | null;
  location_lon: number | null;
  location_accuracy_m: number | null;
  location_precise: boolean | null;
}

/** A finder's first message, with the owner of the item its conversation is about (for its event). */
export interface FirstMessageRow extends MessageRow {
  owner_user_id: string;
}

/** Messages of one conversation whose receipts one change stamped, and that change's version. */
export interface ReceiptChange {
  conversationId: string;
  messageIds: number[];
  version: number;
}

/** A message to write: a finder's shared place has empty content. */
export interface NewMessage {
  conversationId: string;
  author: MessageAuthor;
  content: string;
  location?: SharedLocation;
}

const messageParameters = ({ conversationId, author, content, location }: NewMessage): unknown[] => [
  conversationId,
  author,
  content,
  location?.lat ?? null,
  location?.lon ?? null,
  location?.accuracy_m ?? null,
  location?.precise ?? null,
];

const CONVERSATION_COLUMNS = 'id, item_code, finder_email, finder_language, created_at, last_message_at, finder_left_at, finder_consented_at, owner_consented_at, closed_at';
// bigint arrives from pg as a string; message ids stay far below 2^53.
const MESSAGE_COLUMNS = 'm.id::float8 AS id, m.conversation_id, m.author, m.content, m.created_at, m.read_at, m.delivered_at, m.receipt_version::float8 AS receipt_version, m.location_lat, m.location_lon, m.location_accuracy_m, m.location_precise';

/**
 * The item's thread lock (a transaction-level advisory lock keyed by the item code; class `messaging.thread`), taken
 * by every statement that draws a number from the message id sequence that readers' `after=` goes by (a message's
 * id, a receipt change's version), in the same statement and before the number is drawn, and held to commit. Readers
 * follow an item's thread across all its conversations by the highest number they saw, so per item those numbers must
 * become visible in the order they were drawn: without it, a message (or receipt) drawn first in one conversation and
 * committed after a higher one of another conversation was never shown to a reader whose cursor had passed it. Only
 * these statements take it: after the conversation's row (a message, a consent) and before any message row (a
 * stamp), never with an `item_owners` row, and a request once. So it never waits behind a hand-over, the projection's
 * consumers or an erasure, and closes no cycle of locks (the receipts consumer, whose batch may take several, takes
 * turns first: `stamp`).
 */
const threadLock = (itemCodeSql: string): string => `pg_advisory_xact_lock(hashtext('messaging.thread'), hashtext((${itemCodeSql})::text))`;

// A conversation opened by a mail to its tag (the relay) or by `set-finder`, kept prepared on each connection.
const INSERT_CONVERSATION = prepared(
  `INSERT INTO conversations (item_code, finder_token_hash, finder_email, finder_language) VALUES ($1, $2, $3, $4) RETURNING ${CONVERSATION_COLUMNS}`,
);
// A message row after the conversation's row `c` (RowChange's last CTEs): `t` returns the conversation's id only once the
// item's thread lock is held, so the insert's id (its identity default, drawn as the insert takes that row) is drawn
// after the lock and the item's messages draw their ids in the order they commit, whatever their conversation.
const lockedMessageRow = (values: string, alsoReturning = ''): string =>
  `t AS (SELECT c.id, ${threadLock('c.item_code')} AS locked FROM c),
        change AS (INSERT INTO messages AS m (conversation_id, author, content, location_lat, location_lon, location_accuracy_m, location_precise)
              SELECT t.id, ${values} FROM t RETURNING ${MESSAGE_COLUMNS}${alsoReturning})`;
// A message in a conversation (RowChange): its row is updated first, and only while it takes the message (open,
// and for a finder's message not left): the update waits for a hand-over's close or a "forget me" under way and then
// reads their outcome, so no message lands in a conversation closed or forgotten meanwhile. Its time is the message's
// (both are the statement's `now()`). Then the thread lock and the message. No row for a message refused.
const MESSAGE_CHANGE = `c AS (UPDATE conversations SET last_message_at = now()
               WHERE id = $1 AND closed_at IS NULL AND ($2::text = 'owner' OR finder_left_at IS NULL) RETURNING id, item_code),
        ${lockedMessageRow('$2, $3, $4, $5, $6, $7')}`;
// A finder's first message and the conversation it opens (RowChange; what every message of B3 runs): the item found
// in the same statement (none: nothing written), the new conversation's row (its id given, its last message now), the
// thread lock, then the message, with the item's owner for its event.
const FIRST_MESSAGE_CHANGE = `${activatedItemCte('i', '$2')},
        c AS (INSERT INTO conversations (id, item_code, finder_token_hash, finder_language, last_message_at)
               SELECT $1, i.item_code, $3, $4, now() FROM i RETURNING id, item_code),
        ${lockedMessageRow("'finder', $5, NULL::float8, NULL::float8, NULL::integer, NULL::boolean", ', (SELECT owner_user_id FROM i) AS owner_user_id')}`;
// The item of the conversation `$2`, for a stamp's thread lock.
const ITEM_OF_CONVERSATION_2 = 'SELECT item_code FROM conversations WHERE id = $2';
// A receipt's stamp: `column` set to now on the messages `where` picks (`u`), all under one new version from the
// message id sequence (`v`), drawn once the thread lock of their item (`itemCodeSql`) is held, as a message's id is.
// A statement that stamps takes one thread lock, and no transaction takes two, so none waits for another in a cycle.
const stampCtes = (column: 'read_at' | 'delivered_at', where: string, itemCodeSql: string): string =>
  `l AS (SELECT ${threadLock(itemCodeSql)} AS locked),
            v AS (SELECT nextval(pg_get_serial_sequence('messages', 'id')) AS version FROM l),
            u AS (UPDATE messages SET ${column} = now(), receipt_version = (SELECT version FROM v) WHERE ${where} RETURNING id, conversation_id)`;
// Notifications told the other side of message $1 in conversation $2 (RowChange: the receipts consumer's one statement).
const DELIVERED_CHANGE = `${stampCtes(
  'delivered_at',
  `delivered_at IS NULL AND id <= $1 AND conversation_id = $2 AND author = (SELECT author FROM messages WHERE id = $1 AND conversation_id = $2)`,
  ITEM_OF_CONVERSATION_2,
)},
        change AS (SELECT array_agg(id::float8 ORDER BY id) AS ids, (SELECT version FROM v)::float8 AS version FROM u HAVING count(*) > 0)`;
const LATEST_UNREAD_FINDER_MESSAGE = prepared(
  `SELECT max(id)::float8 AS id FROM messages WHERE conversation_id = $1 AND author = 'finder' AND read_at IS NULL AND id >= $2`,
);

/** The only place that reads or writes conversations and messages. */
@Injectable()
export class ConversationsRepository {
  constructor(private readonly database: Database) {}

  /** Runs `work` in one transaction: a message and the event it records commit together or not at all. */
  transaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.database.transaction(work);
  }

  async insertConversation(
    transaction: Transaction,
    conversation: { itemCode: string; finderTokenHash: string; finderEmail: string | null; finderLanguage: UserLanguage },
  ): Promise<ConversationRow> {
    const row = await this.database.one<ConversationRow>(
      INSERT_CONVERSATION,
      [conversation.itemCode, conversation.finderTokenHash, conversation.finderEmail, conversation.finderLanguage],
      transaction,
    );
    return row as ConversationRow;
  }

  /**
   * The conversation of the item this finder token belongs to, if it still exists and its finder has not left it: the
   * token of the browser that wrote first, or one given in exchange for a resume link. (Leaving deletes every token;
   * the condition holds too for one a racing request may have written after that.)
   */
  async findByFinderToken(itemCode: string, finderTokenHash: string): Promise<ConversationRow | null> {
    const row = await this.database.one<ConversationRow>(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations c
        WHERE c.item_code = $1 AND c.finder_left_at IS NULL
          AND (c.finder_token_hash = $2 OR EXISTS (SELECT 1 FROM finder_tokens t WHERE t.token_hash = $2 AND t.conversation_id = c.id AND t.purpose = 'finder'))`,
      [itemCode, finderTokenHash],
    );
    return row ?? null;
  }

  /** The conversation of the item a resume link's token was minted for, if it still exists and its finder has not left it. */
  async findByResumeToken(itemCode: string, resumeTokenHash: string): Promise<ConversationRow | null> {
    const row = await this.database.one<ConversationRow>(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations c
        WHERE c.item_code = $1 AND c.finder_left_at IS NULL AND EXISTS (SELECT 1 FROM finder_tokens t WHERE t.token_hash = $2 AND t.conversation_id = c.id AND t.purpose = 'resume')`,
      [itemCode, resumeTokenHash],
    );
    return row ?? null;
  }

  /**
   * Keeps the hash of another token of a conversation (a browser's finder token, or a resume link's) while its finder
   * has not left it; false once they have. The conversation's row is share-locked as it is read: a "forget me" under
   * way is waited for (and then read as left), and one that comes after waits for this insert and deletes the token.
   */
  async insertToken(conversationId: string, tokenHash: string, purpose: 'finder' | 'resume'): Promise<boolean> {
    const inserted = await this.database.affected(
      `INSERT INTO finder_tokens (token_hash, conversation_id, purpose)
       SELECT $1, c.id, $3 FROM (SELECT id FROM conversations WHERE id = $2 AND finder_left_at IS NULL FOR SHARE) c`,
      [tokenHash, conversationId, purpose],
    );
    return inserted > 0;
  }

  /** The item's conversation, with a message, whose finder left this address (compared without case); the latest. */
  async findLatestByFinderEmail(itemCode: string, email: string): Promise<ConversationRow | null> {
    const row = await this.database.one<ConversationRow>(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations
        WHERE item_code = $1 AND finder_email IS NOT NULL AND lower(finder_email) = lower($2)
        ORDER BY last_message_at DESC NULLS LAST, created_at DESC LIMIT 1`,
      [itemCode, email],
    );
    return row ?? null;
  }

  async setFinderLanguage(conversationId: string, language: UserLanguage): Promise<void> {
    await this.database.affected('UPDATE conversations SET finder_language = $2 WHERE id = $1 AND finder_language <> $2', [conversationId, language]);
  }

  async findInItem(itemCode: string, conversationId: string): Promise<ConversationRow | null> {
    const row = await this.database.one<ConversationRow>(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE item_code = $1 AND id = $2`, [
      itemCode,
      conversationId,
    ]);
    return row ?? null;
  }

  async findById(conversationId: string): Promise<ConversationRow | null> {
    const row = await this.database.one<ConversationRow>(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id = $1`, [conversationId]);
    return row ?? null;
  }

  /** The item's conversations, oldest first (the order finders are numbered in). */
  findByItem(itemCode: string): Promise<ConversationRow[]> {
    return this.database.rows<ConversationRow>(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE item_code = $1 ORDER BY created_at, id`, [itemCode]);
  }

  /**
   * The conversation of the finder who wrote last; with `withMessages`, only among conversations with a message.
   * Finders still in their conversation come first: one who left is the latest only when no other finder is there.
   */
  async findLatest(itemCode: string, options: { withMessages: boolean }): Promise<ConversationRow | null> {
    const row = await this.database.one<ConversationRow>(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations
        WHERE item_code = $1 ${options.withMessages ? 'AND last_message_at IS NOT NULL' : ''}
        ORDER BY finder_left_at IS NOT NULL, last_message_at DESC NULLS LAST, created_at DESC LIMIT 1`,
      [itemCode],
    );
    return row ?? null;
  }

  /** The finder's address, while they have not left the conversation (false once they have: it is forgotten). */
  async setFinderEmail(conversationId: string, email: string): Promise<boolean> {
    return (await this.database.affected('UPDATE conversations SET finder_email = $2 WHERE id = $1 AND finder_left_at IS NULL', [conversationId, email])) > 0;
  }

  /**
   * A message in a conversation, as a change for `OutboxWriter.recordFromRow` (its event in the same statement); no
   * row when the conversation no longer takes it (closed, or its finder left, meanwhile).
   */
  messageChange(message: NewMessage): RowChange<MessageRow> {
    return { ctes: MESSAGE_CHANGE, parameters: messageParameters(message) };
  }

  /**
   * A finder's first message with the conversation it opens (its id chosen by the caller, no address yet), as a
   * change for `OutboxWriter.recordFromRow`: the item (activated, not deleted) found, both rows and the event in one
   * statement, the row carrying the item's owner. No row when there is no such item.
   */
  firstMessageChange(conversation: { id: string; itemCode: string; finderTokenHash: string; finderLanguage: UserLanguage }, content: string): RowChange<FirstMessageRow> {
    return { ctes: FIRST_MESSAGE_CHANGE, parameters: [conversation.id, conversation.itemCode, conversation.finderTokenHash, conversation.finderLanguage, content] };
  }

  /** Messages newer than `after`, or whose receipts changed after it, in the given conversations, oldest first. */
  async findMessages(conversationIds: string[], after: number): Promise<MessageRow[]> {
    if (conversationIds.length === 0) return [];
    return this.database.rows<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.conversation_id = ANY($1::uuid[]) AND (m.id > $2 OR m.receipt_version > $2) ORDER BY m.id`,
      [
      conversationIds,
      after,
      ],
    );
  }

  /** The newest message id of the item's thread; 0 when there is none. */
  async latestMessageId(itemCode: string): Promise<number> {
    const row = await this.database.one<{ id: number }>(
      `SELECT coalesce(max(m.id), 0)::float8 AS id FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.item_code = $1`,
      [itemCode],
    );
    return (row as { id: number }).id;
  }

  /** Marks the item's finder messages up to `upToId` read by the owner. */
  markFinderMessagesRead(transaction: Transaction, itemCode: string, upToId: number): Promise<ReceiptChange[]> {
    return this.stamp(
      transaction,
      'read_at',
      `author = 'finder' AND read_at IS NULL AND id <= $1 AND conversation_id IN (SELECT id FROM conversations WHERE item_code = $2)`,
      '$2::char(16)',
      [upToId, itemCode],
    );
  }

  /** Marks the owner's replies in a finder's conversation, up to `upToId`, read by that finder. */
  markRepliesRead(transaction: Transaction, conversationId: string, upToId: number): Promise<ReceiptChange[]> {
    return this.stamp(transaction, 'read_at', `author = 'owner' AND read_at IS NULL AND id <= $1 AND conversation_id = $2`, ITEM_OF_CONVERSATION_2, [upToId, conversationId]);
  }

  /**
   * Marks a message, and every earlier one of its author in its conversation, delivered to the other side, as a change
   * for `OutboxWriter.recordFromRow` (the receipts event in the same statement): the messages stamped and the version
   * drawn, or no row when none was left to stamp (the event came again, or late).
   */
  deliveredChange(conversationId: string, messageId: number): RowChange<{ ids: number[]; version: number }> {
    return { ctes: DELIVERED_CHANGE, parameters: [messageId, conversationId] };
  }

  /** The newest finder's message of the conversation from `fromId` on that the owner has not read; null when none. */
  async latestUnreadFinderMessage(conversationId: string, fromId: number): Promise<number | null> {
    const row = await this.database.one<{ id: number | null }>(
      LATEST_UNREAD_FINDER_MESSAGE,
      [conversationId, fromId],
    );
    return row?.id ?? null;
  }

  // Sets `column` to now on the messages `where` picks, all under one new version (stampCtes), one change a conversation.
  private async stamp(transaction: Transaction, column: 'read_at' | 'delivered_at', where: string, itemCodeSql: string, params: unknown[]): Promise<ReceiptChange[]> {
    const text = `WITH ${stampCtes(column, where, itemCodeSql)}
       SELECT conversation_id, array_agg(id::float8 ORDER BY id) AS ids, (SELECT version FROM v)::float8 AS version FROM u GROUP BY conversation_id`;
    // One text per receipt this repository writes (its callers pass fixed conditions), so it may be prepared.
    const rows = await this.database.rows<{ conversation_id: string; ids: number[]; version: number }>(
      prepared(text),
      params,
      transaction,
    );
    return rows.map((row) => ({ conversationId: row.conversation_id, messageIds: row.ids.map(Number), version: Number(row.version) }));
  }

  async countUnread(itemCode: string): Promise<number> {
    const row = await this.database.one<{ count: number }>(
      `SELECT count(*)::int AS count FROM messages m JOIN conversations c ON c.id = m.conversation_id
        WHERE c.item_code = $1 AND m.author = 'finder' AND m.read_at IS NULL`,
      [itemCode],
    );
    return (row as { count: number }).count;
  }

  /** Which of these items have a finder's message. */
  async itemsWithFinderMessages(itemCodes: string[]): Promise<Set<string>> {
    if (itemCodes.length === 0) return new Set();
    const rows = await this.database.rows<{ item_code: string }>(
      `SELECT DISTINCT c.item_code FROM conversations c
        WHERE c.item_code = ANY($1::char(16)[]) AND EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.author = 'finder')`,
      [itemCodes],
    );
    return new Set(rows.map((row) => row.item_code));
  }

  /**
   * A finder forgets themselves: their messages, their address, their language (back to the default) and every token
   * of the conversation go; the owner's replies and a `finder_left_at` marker stay. False when the conversation is
   * already left (a concurrent call): nothing to do twice.
   */
  async forgetFinder(transaction: Transaction, conversationId: string): Promise<boolean> {
    const left = await this.database.affected(
      `UPDATE conversations SET finder_left_at = now(), finder_email = NULL, finder_language = 'en', finder_token_hash = NULL
        WHERE id = $1 AND finder_left_at IS NULL`,
      [conversationId],
      transaction,
    );
    if (left === 0) return false;
    await this.database.affected("DELETE FROM messages WHERE conversation_id = $1 AND author = 'finder'", [conversationId], transaction);
    await this.database.affected('DELETE FROM finder_tokens WHERE conversation_id = $1', [conversationId], transaction);
    return true;
  }

  /** Deletes every conversation of the item, or those begun before `startedBefore` (their messages go with them); returns their ids. */
  async deleteByItem(transaction: Transaction, itemCode: string, startedBefore?: Date): Promise<string[]> {
    const rows = await this.database.rows<{ id: string }>(
      'DELETE FROM conversations WHERE item_code = $1 AND ($2::timestamptz IS NULL OR created_at < $2) RETURNING id',
      [itemCode, startedBefore ?? null],
      transaction,
    );
    return rows.map((row) => row.id);
  }

  /**
   * A number from the message id sequence: the version of an event that is not a message (a reset), so it orders
   * after every message before it and before every message after it.
   */
  async nextThreadVersion(transaction: Transaction): Promise<number> {
    const row = await this.database.one<{ version: number }>("SELECT nextval(pg_get_serial_sequence('messages', 'id'))::float8 AS version", [], transaction);
    return (row as { version: number }).version;
  }

  /**
   * A side agrees (the time of its first agreement stays) or withdraws, which it may only while the other side has
   * not agreed. Null when the withdrawal came too late (both had agreed) or the conversation is gone.
   */
  async setConsent(transaction: Transaction, conversationId: string, side: 'finder' | 'owner', agree: boolean): Promise<ConversationRow | null> {
    const mine = side === 'finder' ? 'finder_consented_at' : 'owner_consented_at';
    const theirs = side === 'finder' ? 'owner_consented_at' : 'finder_consented_at';
    const sql = agree
      ? `UPDATE conversations SET ${mine} = coalesce(${mine}, now()) WHERE id = $1 RETURNING ${CONVERSATION_COLUMNS}`
      : `UPDATE conversations SET ${mine} = NULL WHERE id = $1 AND (${theirs} IS NULL OR ${mine} IS NULL) RETURNING ${CONVERSATION_COLUMNS}`;
    return (await this.database.one<ConversationRow>(sql, [conversationId], transaction)) ?? null;
  }

  /**
   * Every message of the conversation under one new version, so polls and streams bring them again (now shown
   * unmasked): the change a consent makes to what readers see, told as receipts are.
   */
  async restamp(transaction: Transaction, conversationId: string): Promise<ReceiptChange[]> {
    const rows = await this.database.rows<{ ids: number[] | null; version: number }>(
      `WITH l AS (SELECT ${threadLock('SELECT item_code FROM conversations WHERE id = $1')} AS locked),
            v AS (SELECT nextval(pg_get_serial_sequence('messages', 'id')) AS version FROM l),
            u AS (UPDATE messages SET receipt_version = (SELECT version FROM v) WHERE conversation_id = $1 RETURNING id)
       SELECT (SELECT array_agg(id::float8 ORDER BY id) FROM u) AS ids, (SELECT version FROM v)::float8 AS version`,
      [conversationId],
      transaction,
    );
    const ids = rows[0]?.ids ?? [];
    return ids.length === 0 ? [] : [{ conversationId, messageIds: ids.map(Number), version: Number(rows[0].version) }];
  }

  /** Locks the conversation for a hand-over attempt, with its wrong tries of the current hour. */
  async lockForHandover(transaction: Transaction, conversationId: string): Promise<{ closed_at: Date | null; handover_failures: number; handover_failures_since: Date | null } | null> {
    return (
      (await this.database.one<{ closed_at: Date | null; handover_failures: number; handover_failures_since: Date | null }>(
        'SELECT closed_at, handover_failures, handover_failures_since FROM conversations WHERE id = $1 FOR UPDATE',
        [conversationId],
        transaction,
      )) ?? null
    );
  }

  async recordHandoverFailure(transaction: Transaction, conversationId: string, failures: number, since: Date): Promise<void> {
    await this.database.affected('UPDATE conversations SET handover_failures = $2, handover_failures_since = $3 WHERE id = $1', [conversationId, failures, since], transaction);
  }

  async close(transaction: Transaction, conversationId: string, at: Date): Promise<void> {
    await this.database.affected('UPDATE conversations SET closed_at = $2, handover_failures = 0, handover_failures_since = NULL WHERE id = $1', [conversationId, at], transaction);
  }
}
