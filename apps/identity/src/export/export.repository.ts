import { Injectable } from '@nestjs/common';
import { Database } from '@homing/platform';

export interface AccountExportRow {
  email: string;
  language: string;
  createdAt: Date;
  hasPassword: boolean;
  isAdmin: boolean;
}

export interface SessionExportRow {
  createdAt: Date;
  lastUsedAt: Date;
  revokedAt: Date | null;
  /** The passkey that opened the session, if one did and it is still there. */
  passkey: { name: string | null; aaguid: string | null } | null;
}

/** Reads what identity keeps about one user for their export: columns chosen so no hash or token id can leave. */
@Injectable()
export class ExportRepository {
  constructor(private readonly database: Database) {}

  account(userId: string): Promise<AccountExportRow | undefined> {
    return this.database.one<AccountExportRow>(
      `SELECT email, language, created_at AS "createdAt", password_hash IS NOT NULL AS "hasPassword", is_admin AS "isAdmin"
       FROM users WHERE id = $1`,
      [userId],
    );
  }

  sessions(userId: string): Promise<SessionExportRow[]> {
    return this.database.rows<SessionExportRow>(
      `SELECT s.created_at AS "createdAt", s.last_used_at AS "lastUsedAt", s.revoked_at AS "revokedAt",
              CASE WHEN p.id IS NULL THEN NULL ELSE json_build_object('name', p.name, 'aaguid', p.aaguid) END AS passkey
       FROM sessions s LEFT JOIN passkeys p ON p.id = s.passkey_id WHERE s.user_id = $1 ORDER BY s.created_at`,
      [userId],
    );
  }

  /** Names, models and times only: never a credential id or public key. */
  passkeys(userId: string): Promise<Array<{ name: string | null; aaguid: string | null; backedUp: boolean; createdAt: Date; lastUsedAt: Date | null }>> {
    return this.database.rows(
      `SELECT name, aaguid, backed_up AS "backedUp", created_at AS "createdAt", last_used_at AS "lastUsedAt" FROM passkeys WHERE user_id = $1 ORDER BY created_at`,
      [userId],
    );
  }

  mailRequests(userId: string): Promise<Array<{ kind: string; sentAt: Date }>> {
    return this.database.rows(`SELECT kind, sent_at AS "sentAt" FROM mail_sends WHERE user_id = $1 ORDER BY sent_at`, [userId]);
  }
}
