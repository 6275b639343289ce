import { Injectable } from '@nestjs/common';
import { Database, type Transaction } from '@homing/platform';
import type { InvitationKind } from '@homing/contracts';

export interface InvitationRow {
  id: string;
  item_code: string;
  kind: InvitationKind;
  email: string;
  invited_by: string;
  expires_at: Date;
  accepted_at: Date | null;
  cancelled_at: Date | null;
}

export interface LockedItem {
  code: string;
  name: string | null;
  owner_user_id: string | null;
  claimed_at: Date | null;
}

const INVITATION_COLUMNS = 'id, item_code, kind, email, invited_by, expires_at, accepted_at, cancelled_at';

/** The only place that reads or writes co-owners and invitations. */
@Injectable()
export class PeopleRepository {
  constructor(private readonly database: Database) {}

  transaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.database.transaction(work);
  }

  /** The item, locked for a change of its people (invitations, co-owners, owner) so concurrent ones take turns. */
  async lockItem(transaction: Transaction, code: string): Promise<LockedItem | null> {
    return (await this.database.one<LockedItem>('SELECT code, name, owner_user_id, claimed_at FROM items WHERE code = $1 FOR UPDATE', [code], transaction)) ?? null;
  }

  /** The item's name, for an invitation's page (a read: nothing is changed, nothing locked). */
  async itemName(code: string): Promise<string | null> {
    return (await this.database.one<{ name: string | null }>('SELECT name FROM items WHERE code = $1', [code]))?.name ?? null;
  }

  async coOwners(code: string, transaction?: Transaction): Promise<Array<{ user_id: string; added_at: Date }>> {
    return this.database.rows('SELECT user_id, added_at FROM item_co_owners WHERE item_code = $1 ORDER BY added_at, user_id', [code], transaction);
  }

  /** Invitations neither accepted, cancelled nor expired. */
  openInvitations(code: string, now: Date, transaction?: Transaction): Promise<InvitationRow[]> {
    return this.database.rows<InvitationRow>(
      `SELECT ${INVITATION_COLUMNS} FROM item_invitations
        WHERE item_code = $1 AND accepted_at IS NULL AND cancelled_at IS NULL AND expires_at > $2 ORDER BY created_at, id`,
      [code, now],
      transaction,
    );
  }

  async insertInvitation(
    transaction: Transaction,
    invitation: { id: string; code: string; kind: InvitationKind; email: string; tokenHash: string; invitedBy: string; expiresAt: Date },
  ): Promise<void> {
    await this.database.affected(
      'INSERT INTO item_invitations (id, item_code, kind, email, token_hash, invited_by, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [invitation.id, invitation.code, invitation.kind, invitation.email, invitation.tokenHash, invitation.invitedBy, invitation.expiresAt],
      transaction,
    );
  }

  async findInvitationByToken(tokenHash: string, transaction?: Transaction): Promise<InvitationRow | null> {
    const lock = transaction ? ' FOR UPDATE' : '';
    return (await this.database.one<InvitationRow>(`SELECT ${INVITATION_COLUMNS} FROM item_invitations WHERE token_hash = $1${lock}`, [tokenHash], transaction)) ?? null;
  }

  async cancelInvitation(transaction: Transaction, code: string, id: string): Promise<boolean> {
    return (await this.database.affected('UPDATE item_invitations SET cancelled_at = now() WHERE item_code = $1 AND id = $2 AND accepted_at IS NULL AND cancelled_at IS NULL', [code, id], transaction)) > 0;
  }

  async markAccepted(transaction: Transaction, id: string, userId: string): Promise<void> {
    await this.database.affected('UPDATE item_invitations SET accepted_at = now(), accepted_by = $2 WHERE id = $1', [id, userId], transaction);
  }

  async addCoOwner(transaction: Transaction, code: string, userId: string): Promise<void> {
    await this.database.affected('INSERT INTO item_co_owners (item_code, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [code, userId], transaction);
  }

  async removeCoOwner(transaction: Transaction, code: string, userId: string): Promise<boolean> {
    return (await this.database.affected('DELETE FROM item_co_owners WHERE item_code = $1 AND user_id = $2', [code, userId], transaction)) > 0;
  }

  /**
   * Passes the item to its new owner: co-owners go, open invitations are cancelled, lost mode ends and its scans go
   * (the next owner starts afresh: where the tag was scanned while it was someone else's is none of theirs, as the
   * conversations of that time are not). Returns the version its events carry.
   */
  async transfer(transaction: Transaction, code: string, newOwnerUserId: string): Promise<number> {
    await this.database.affected('DELETE FROM item_co_owners WHERE item_code = $1', [code], transaction);
    await this.database.affected('DELETE FROM scans WHERE item_code = $1', [code], transaction);
    await this.database.affected('UPDATE item_invitations SET cancelled_at = now() WHERE item_code = $1 AND accepted_at IS NULL AND cancelled_at IS NULL', [code], transaction);
    const row = await this.database.one<{ version: number }>(
      // The previous owner's words and promise stay theirs: lost mode and its note end, and the reward they offered is
      // not one the new owner makes (the item's name and photo pass with it; the new owner may change both).
      `UPDATE items SET owner_user_id = $2, lost_at = NULL, lost_note = NULL, reward_cents = NULL, version = version + 1, updated_at = now() WHERE code = $1 RETURNING version`,
      [code, newOwnerUserId],
      transaction,
    );
    return Number(row?.version);
  }

  /** One more version of the item, for a change of its people alone. */
  async bumpVersion(transaction: Transaction, code: string): Promise<number> {
    const row = await this.database.one<{ version: number }>('UPDATE items SET version = version + 1, updated_at = now() WHERE code = $1 RETURNING version', [code], transaction);
    return Number(row?.version);
  }

  /**
   * The invitations an erased user sent or accepted, deleted: an accepted one holds their id and the address it was
   * sent to (theirs), one they sent their id, until the retention rule, 30 days on. Those of their own items went with
   * the items; these are of items that stay (one they were invited to share, one they passed on).
   */
  async deleteInvitationsOf(transaction: Transaction, userId: string): Promise<void> {
    await this.database.affected('DELETE FROM item_invitations WHERE invited_by = $1 OR accepted_by = $1', [userId], transaction);
  }

  /** The erased user's co-ownerships, removed; the codes of the items they were of. */
  async removeUser(transaction: Transaction, userId: string): Promise<string[]> {
    const rows = await this.database.rows<{ item_code: string }>('DELETE FROM item_co_owners WHERE user_id = $1 RETURNING item_code', [userId], transaction);
    return rows.map((row) => row.item_code);
  }
}
