import type { MigrationInterface, QueryRunner } from 'typeorm';
import { sealAnswer, storedIdempotencyKey } from '../idempotency/sealed-answers';

/**
 * Rows written before answers were sealed kept the Idempotency-Key and the answer (with any finder token) in clear:
 * each is rewritten as IdempotencyKeys now writes it (hashed key, sealed answer), so a retry within its window still
 * gets its first answer and nothing stays readable. The table holds at most 24 h of keys.
 */
export class IdempotencyAnswersSealed1764910000000 implements MigrationInterface {
  name = 'IdempotencyAnswersSealed1764910000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const rows: Array<{ scope: string; key: string; response: unknown }> = await queryRunner.query('SELECT scope, key, response FROM idempotency_keys');
    for (const row of rows) {
      // A row without an answer belongs to a transaction that never committed its work: nothing to seal.
      const response = row.response === null ? null : JSON.stringify(sealAnswer(row.response, row.key, row.scope));
      await queryRunner.query('UPDATE idempotency_keys SET key = $3, response = $4 WHERE scope = $1 AND key = $2', [
        row.scope,
        row.key,
        storedIdempotencyKey(row.key),
        response,
      ]);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Sealed answers cannot be opened without their keys: going back forgets them (retries then run again).
    await queryRunner.query('DELETE FROM idempotency_keys');
  }
}
