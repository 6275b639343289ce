import { deleteInBatches, type Database, type RetentionRule } from '@homing/platform';
import type { MessagingConfig } from '../config/messaging.config';
import { RESUME_LINK_IDLE_MS } from './finder-tokens';

const DAY_MS = 24 * 60 * 60_000;

// A conversation's last activity: its latest message, or when it began if it has none.
const idleBefore = (alias: string, limit: string) => `coalesce(${alias}.last_message_at, ${alias}.created_at) < $1::timestamptz - ${limit} * interval '1 millisecond'`;

/**
 * What messaging stops keeping: a conversation silent for `CONVERSATION_RETENTION_DAYS` goes whole (its messages,
 * the finder's address and every finder and resume token, by cascade), and a resume link's token goes once the
 * link can no longer open its conversation (30 days without activity).
 */
export function messagingRetentionRules(database: Database, config: Pick<MessagingConfig, 'RETENTION_BATCH_SIZE' | 'CONVERSATION_RETENTION_DAYS'>): RetentionRule[] {
  const batchSize = config.RETENTION_BATCH_SIZE;
  return [
    {
      name: 'conversations-silent',
      purge: (now) =>
        deleteInBatches(database, { table: 'conversations', where: idleBefore('conversations', '$2'), parameters: [now, config.CONVERSATION_RETENTION_DAYS * DAY_MS], batchSize }),
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
