import { Injectable } from '@nestjs/common';
import type { Transaction } from '../database/transactions.repository';

/** The only place that reads or writes the mail_sends table. */
@Injectable()
export class MailSendsRepository {
  /** The user's e-mails within the last `windowMs` and the database's clock; forgets older ones. */
  async recent(tx: Transaction, userId: string, windowMs: number): Promise<{ sentAt: Date[]; now: Date }> {
    await tx.query(`DELETE FROM mail_sends WHERE user_id = $1 AND sent_at < now() - $2 * interval '1 millisecond'`, [userId, windowMs]);
    const rows: Array<{ sentAt: Date }> = await tx.query('SELECT sent_at AS "sentAt" FROM mail_sends WHERE user_id = $1', [userId]);
    const [{ now }]: Array<{ now: Date }> = await tx.query('SELECT now() AS "now"');
    return { sentAt: rows.map((row) => row.sentAt), now };
  }

  async record(tx: Transaction, userId: string, kind: string): Promise<void> {
    await tx.query('INSERT INTO mail_sends (user_id, kind) VALUES ($1, $2)', [userId, kind]);
  }
}
