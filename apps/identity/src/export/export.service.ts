import { Injectable } from '@nestjs/common';
import { ResponseCode, type IdentityExport } from '@homing/contracts';
import { RpcError } from '@homing/platform';
import { providerOf } from '../passkeys/passkey-providers';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../sessions/session-lifetime';
import { ExportRepository, type SessionExportRow } from './export.repository';

/** When a session stops being usable: a week after its last use, 30 days after it began, whichever comes first. */
export function sessionExpiry(session: Pick<SessionExportRow, 'createdAt' | 'lastUsedAt'>): Date {
  return new Date(Math.min(session.lastUsedAt.getTime() + SESSION_IDLE_MS, session.createdAt.getTime() + SESSION_ABSOLUTE_MS));
}

/** What identity keeps about a user, for their own export. */
@Injectable()
export class ExportService {
  constructor(private readonly repository: ExportRepository) {}

  async exportUser(userId: string): Promise<IdentityExport> {
    const [account, sessions, passkeys, mailRequests] = await Promise.all([
      this.repository.account(userId),
      this.repository.sessions(userId),
      this.repository.passkeys(userId),
      this.repository.mailRequests(userId),
    ]);
    if (!account) throw RpcError.notFound(ResponseCode.NOT_FOUND, 'User not found.');
    return {
      account: { ...account, createdAt: account.createdAt.toISOString() },
      sessions: sessions.map((session) => ({
        createdAt: session.createdAt.toISOString(),
        lastUsedAt: session.lastUsedAt.toISOString(),
        expiresAt: sessionExpiry(session).toISOString(),
        revokedAt: session.revokedAt?.toISOString() ?? null,
        passkey: session.passkey ? { name: session.passkey.name, provider: providerOf(session.passkey.aaguid) } : null,
      })),
      passkeys: passkeys.map((passkey) => ({
        name: passkey.name,
        provider: providerOf(passkey.aaguid),
        synced: passkey.backedUp,
        createdAt: passkey.createdAt.toISOString(),
        lastUsedAt: passkey.lastUsedAt?.toISOString() ?? null,
      })),
      mailRequests: mailRequests.map(({ kind, sentAt }) => ({ kind, sentAt: sentAt.toISOString() })),
    };
  }
}
