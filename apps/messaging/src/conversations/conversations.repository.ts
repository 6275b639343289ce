import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { MessageAuthor } from '@homing/contracts';

export interface ConversationRow {
  id: string;
  item_code: string;
  finder_email: string | null;
  created_at: Date;
  last_message_at: Date | null;
}

export interface MessageRow {
  id: number;
  conversation_id: string;
  author: MessageAuthor;
  content: string;
  created_at: Date;
  read_at: Date | null;
}

const CONVERSATION_COLUMNS = 'id, item_code, finder_email, created_at, last_message_at';
// bigint arrives from pg as a string; message ids stay far below 2^53.
const MESSAGE_COLUMNS = 'm.id::float8 AS id, m.conversation_id, m.author, m.content, m.created_at, m.read_at';

/** The only place that reads or writes conversations and messages. */
@Injectable()
export class ConversationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Runs `work` in one transaction: a message and the event it records commit together or not at all. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insertConversation(manager: EntityManager, conversation: { itemCode: string; finderTokenHash: string; finderEmail: string | null }): Promise<ConversationRow> {
    const rows: ConversationRow[] = await manager.query(
      `INSERT INTO conversations (item_code, finder_token_hash, finder_email) VALUES ($1, $2, $3) RETURNING ${CONVERSATION_COLUMNS}`,
      [conversation.itemCode, conversation.finderTokenHash, conversation.finderEmail],
    );
    return rows[0];
  }

  /** The conversation of the item this finder token opened, if it still exists. */
  async findByFinderToken(itemCode: string, finderTokenHash: string): Promise<ConversationRow | null> {
    const rows: ConversationRow[] = await this.dataSource.query(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE item_code = $1 AND finder_token_hash = $2`,
      [itemCode, finderTokenHash],
    );
    return rows[0] ?? null;
  }

  async findInItem(itemCode: string, conversationId: string): Promise<ConversationRow | null> {
    const rows: ConversationRow[] = await this.dataSource.query(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE item_code = $1 AND id = $2`, [
      itemCode,
      conversationId,
    ]);
    return rows[0] ?? null;
  }

  async findById(conversationId: string): Promise<ConversationRow | null> {
    const rows: ConversationRow[] = await this.dataSource.query(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id = $1`, [conversationId]);
    return rows[0] ?? null;
  }

  /** The item's conversations, oldest first (the order finders are numbered in). */
  async findByItem(itemCode: string): Promise<ConversationRow[]> {
    return this.dataSource.query(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE item_code = $1 ORDER BY created_at, id`, [itemCode]);
  }

  /** The conversation of the finder who wrote last; with `withMessages`, only among conversations with a message. */
  async findLatest(itemCode: string, options: { withMessages: boolean }): Promise<ConversationRow | null> {
    const rows: ConversationRow[] = await this.dataSource.query(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations
        WHERE item_code = $1 ${options.withMessages ? 'AND last_message_at IS NOT NULL' : ''}
        ORDER BY last_message_at DESC NULLS LAST, created_at DESC LIMIT 1`,
      [itemCode],
    );
    return rows[0] ?? null;
  }

  async setFinderEmail(conversationId: string, email: string): Promise<void> {
    await this.dataSource.query('UPDATE conversations SET finder_email = $2 WHERE id = $1', [conversationId, email]);
  }

  async insertMessage(manager: EntityManager, message: { conversationId: string; author: MessageAuthor; content: string }): Promise<MessageRow> {
    const rows: MessageRow[] = await manager.query(
      `WITH m AS (INSERT INTO messages (conversation_id, author, content) VALUES ($1, $2, $3) RETURNING *),
            touched AS (UPDATE conversations SET last_message_at = (SELECT created_at FROM m) WHERE id = $1)
       SELECT ${MESSAGE_COLUMNS} FROM m`,
      [message.conversationId, message.author, message.content],
    );
    return rows[0];
  }

  /** Messages newer than `after` in the given conversations, oldest first. */
  async findMessages(conversationIds: string[], after: number): Promise<MessageRow[]> {
    if (conversationIds.length === 0) return [];
    return this.dataSource.query(`SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.conversation_id = ANY($1::uuid[]) AND m.id > $2 ORDER BY m.id`, [
      conversationIds,
      after,
    ]);
  }

  /** The newest message id of the item's thread; 0 when there is none. */
  async latestMessageId(itemCode: string): Promise<number> {
    const rows: Array<{ id: number }> = await this.dataSource.query(
      `SELECT coalesce(max(m.id), 0)::float8 AS id FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.item_code = $1`,
      [itemCode],
    );
    return rows[0].id;
  }

  /** Marks the item's finder messages up to `upToId` read by the owner. */
  async markFinderMessagesRead(itemCode: string, upToId: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE messages SET read_at = now()
        WHERE author = 'finder' AND read_at IS NULL AND id <= $2
          AND conversation_id IN (SELECT id FROM conversations WHERE item_code = $1)`,
      [itemCode, upToId],
    );
  }

  async countUnread(itemCode: string): Promise<number> {
    const rows: Array<{ count: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS count FROM messages m JOIN conversations c ON c.id = m.conversation_id
        WHERE c.item_code = $1 AND m.author = 'finder' AND m.read_at IS NULL`,
      [itemCode],
    );
    return rows[0].count;
  }

  /** Which of these items have a finder's message. */
  async itemsWithFinderMessages(itemCodes: string[]): Promise<Set<string>> {
    if (itemCodes.length === 0) return new Set();
    const rows: Array<{ item_code: string }> = await this.dataSource.query(
      `SELECT DISTINCT c.item_code FROM conversations c
        WHERE c.item_code = ANY($1::char(16)[]) AND EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.author = 'finder')`,
      [itemCodes],
    );
    return new Set(rows.map((row) => row.item_code));
  }

  /** Deletes every conversation of the item (their messages go with them); returns how many. */
  async deleteByItem(manager: EntityManager, itemCode: string): Promise<number> {
    const [, deleted]: [unknown[], number] = await manager.query('DELETE FROM conversations WHERE item_code = $1', [itemCode]);
    return deleted;
  }

  /**
   * A number from the message id sequence: the version of an event that is not a message (a reset), so it orders
   * after every message before it and before every message after it.
   */
  async nextThreadVersion(manager: EntityManager): Promise<number> {
    const rows: Array<{ version: number }> = await manager.query("SELECT nextval(pg_get_serial_sequence('messages', 'id'))::float8 AS version");
    return rows[0].version;
  }
}
