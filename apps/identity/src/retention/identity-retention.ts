import { deleteInBatches, type Database, type RetentionRule } from '@homing/platform';
import type { IdentityConfig } from '../config/identity.config';
import { LONGEST_MAIL_WINDOW_MS } from '../mail-limits/mail-limits';
import { SESSION_ABSOLUTE_MS } from '../sessions/session-lifetime';

const DAY_MS = 24 * 60 * 60_000;
// An expired code or link is kept this long after it expired, so the person who opens it late is still told it
// expired (and can ask for another) rather than that it is not valid; a used one answers "not valid" either way.
export const EXPIRED_LOGIN_CODE_KEPT_MS = DAY_MS;
export const EXPIRED_PASSWORD_TOKEN_KEPT_MS = 7 * DAY_MS;

/**
 * What identity stops keeping: sessions that can no longer be refreshed whatever happens (past their absolute
 * lifetime), login codes and password links once used or a while after they expired, and mail-limit rows no
 * window counts.
 */
export function identityRetentionRules(database: Database, config: Pick<IdentityConfig, 'RETENTION_BATCH_SIZE'>): RetentionRule[] {
  const batchSize = config.RETENTION_BATCH_SIZE;
  return [
    {
      name: 'sessions-past-lifetime',
      purge: (now) =>
        deleteInBatches(database, { table: 'sessions', where: `created_at < $1::timestamptz - $2 * interval '1 millisecond'`, parameters: [now, SESSION_ABSOLUTE_MS], batchSize }),
    },
    {
      name: 'login-codes-used-or-expired',
      purge: (now) =>
        deleteInBatches(database, {
          table: 'login_codes',
          where: `used_at IS NOT NULL OR expires_at <= $1::timestamptz - $2 * interval '1 millisecond'`,
          parameters: [now, EXPIRED_LOGIN_CODE_KEPT_MS],
          batchSize,
        }),
    },
    {
      name: 'password-tokens-used-or-expired',
      purge: (now) =>
        deleteInBatches(database, {
          table: 'password_tokens',
          where: `used_at IS NOT NULL OR expires_at <= $1::timestamptz - $2 * interval '1 millisecond'`,
          parameters: [now, EXPIRED_PASSWORD_TOKEN_KEPT_MS],
          batchSize,
        }),
    },
    {
      // A ceremony's challenge is useless once expired (5 minutes); a used one is deleted as it is taken.
      name: 'passkey-challenges-expired',
      purge: (now) => deleteInBatches(database, { table: 'passkey_challenges', where: 'expires_at <= $1::timestamptz', parameters: [now], batchSize }),
    },
    {
      name: 'mail-sends-past-window',
      purge: (now) =>
        deleteInBatches(database, { table: 'mail_sends', where: `sent_at < $1::timestamptz - $2 * interval '1 millisecond'`, parameters: [now, LONGEST_MAIL_WINDOW_MS], batchSize }),
    },
  ];
}
