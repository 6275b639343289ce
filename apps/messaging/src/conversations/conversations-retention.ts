import { deleteInBatches, OutboxWriter, type Database, type RetentionRule } from '@homing/platform';
import type { MessagingConfig } from '../config/messaging.config';
import { MESSAGING_SCHEMA } from '../persisted-names';
import { RESUME_LINK_IDLE_MS } from './finder-tokens';

const DAY_MS = 24 * 60 * 60_000;

// A conversation's last activity: its latest message, or when it began if it has none.
const idleBefore = (alias: string, limit: string) => `coalesce(${alias}.last_message_at, ${alias}.created_at) < $1::timestamptz - ${limit} * interval '1 millisecond'`;

/**
 * What messaging stops keeping: a conversation silent for `CONVERSATION_RETENTION_DAYS` goes whole (its messages,
 * the finder's address and every finder and resume token, by cascade), and a resume link's token goes once the
 * link can no longer open its conversation (30 days without activity).
 */
export function messagingRetentionRules(
  database: Database,
  config: Pick<MessagingConfig, 'RETENTION_BATCH_SIZE' | 'CONVERSATION_RETENTION_DAYS' | 'FINDER_DATA_RETENTION_DAYS' | 'DATABASE_URL' | 'DATABASE_SCHEMA'>,
): RetentionRule[] {
  const batchSize = config.RETENTION_BATCH_SIZE;
  // The rules also run from the `purge-expired` command, outside Nest: the writer is made here rather than injected.
  const outbox = new OutboxWriter({ producer: 'messaging', schema: config.DATABASE_SCHEMA ?? MESSAGING_SCHEMA, databaseUrl: config.DATABASE_URL }, database);
  return [
    {
      name: 'conversations-silent',
      purge: (now) => eraseConversations(database, outbox, { where: idleBefore('conversations', '$2'), parameters: [now, config.CONVERSATION_RETENTION_DAYS * DAY_MS], batchSize }),
    },
    {
      // A case closed by a hand-over: the finder's data is kept FINDER_DATA_RETENTION_DAYS, then goes as a silent one's.
      name: 'conversations-handed-over',
      purge: (now) =>
        eraseConversations(database, outbox, {
          where: "closed_at IS NOT NULL AND closed_at < $1::timestamptz - $2 * interval '1 millisecond'",
          parameters: [now, config.FINDER_DATA_RETENTION_DAYS * DAY_MS],
          batchSize,
        }),
    },
    {
      name: 'resume-tokens-idle',
      purge: (now) =>
        deleteInBatches(database, {
          table: 'finder_tokens',
          where: `purpose = 'resume' AND EXISTS (SELECT 1 FROM conversations c WHERE c.id = finder_tokens.conversation_id AND ${idleBefore('c', '$2')})`,
          parameters: [now, RESUME_LINK_IDLE_MS],
          batchSize,
        }),
    },
  ];
}

/**
 * Deletes the conversations `where` picks (its `$1` the clock, `$2` the limit in milliseconds) a batch per transaction, and in each records
 * `messaging.conversations.erased.v1` per item (as a reset does), so their finders' push subscriptions go too.
 * Returns how many went.
 */
async function eraseConversations(database: Database, outbox: OutboxWriter, { where, parameters, batchSize }: { where: string; parameters: [Date, number]; batchSize: number }): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await database.transaction(async (transaction) => {
      const rows = await database.rows<{ id: string; item_code: string }>(
        `DELETE FROM conversations WHERE ctid IN (SELECT ctid FROM conversations WHERE ${where} LIMIT $3)
         RETURNING id, item_code`,
        [...parameters, batchSize],
        transaction,
      );
      const byItem = new Map<string, string[]>();
      for (const row of rows) byItem.set(row.item_code, [...(byItem.get(row.item_code) ?? []), row.id]);
      for (const [itemCode, conversationIds] of byItem) {
        const version = (await database.one<{ version: number }>("SELECT nextval(pg_get_serial_sequence('messages', 'id'))::float8 AS version", [], transaction))?.version ?? 0;
        await outbox.record(transaction, 'messaging.conversations.erased.v1', { itemCode, conversationIds }, { aggregateId: itemCode, version });
      }
      return rows.length;
    });
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
