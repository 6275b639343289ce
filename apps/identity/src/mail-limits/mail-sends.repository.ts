import { Injectable } from '@nestjs/common';
import { Database, type Transaction } from '@homing/platform';

/** The only place that reads or writes the mail_sends table. */
@Injectable()
export class MailSendsRepository {
  constructor(private readonly database: Database) {}

  /** The user's e-mails of one kind within the last `windowMs` and the database's clock; forgets older ones. */
  async recent(tx: Transaction | undefined, userId: string, kind: string, windowMs: number): Promise<{ sentAt: Date[]; now: Date }> {
    await this.database.affected(`DELETE FROM mail_sends WHERE user_id = $1 AND sent_at < now() - $2 * interval '1 millisecond'`, [userId, windowMs], tx);
    const rows = await this.database.rows<{ sentAt: Date }>('SELECT sent_at AS "sentAt" FROM mail_sends WHERE user_id = $1 AND kind = $2', [userId, kind], tx);
    const clock = await this.database.one<{ now: Date }>('SELECT now() AS "now"', [], tx);
    return { sentAt: rows.map((row) => row.sentAt), now: (clock as { now: Date }).now };
  }

  async record(tx: Transaction | undefined, userId: string, kind: string): Promise<void> {
    await this.database.affected('INSERT INTO mail_sends (user_id, kind) VALUES ($1, $2)', [userId, kind], tx);
  }
}
