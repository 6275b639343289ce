import { createHash } from 'node:crypto';
import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { escapeLiteral } from 'pg';
import { ResponseCode } from '@homing/contracts';
import { Database, type Transaction } from '../database/database';
import { RpcError } from '../nats/rpc-error';
import { openAnswer, sealAnswer, storedIdempotencyKey } from './sealed-answers';

/** How long a key keeps its first result: the retry window promised to clients. */
export const IDEMPOTENCY_KEY_TTL_HOURS = 24;

// Keys past their window are deleted this often (by every replica; the delete is cheap and idempotent).
const PURGE_INTERVAL_MS = 60 * 60 * 1000;

/** A state-changing request sent with an `Idempotency-Key`. */
export interface IdempotentRequest {
  /** What the request does, e.g. `items.create`. */
  operation: string;
  /** Who asks, e.g. the owner's user id: keys are per caller, so two callers' keys never collide. */
  caller: string;
  /** The client's `Idempotency-Key`. */
  key: string;
  /** The request's content: the same key sent with other content is refused. */
  request: unknown;
}

/**
 * Runs state changes at most once per idempotency key. The key is claimed by a row in `idempotency_keys`, in
 * the same transaction as the work and its result, so the result exists if and only if the work committed:
 * a retry within 24 h gets the first result, a request racing the first waits for it and gets the same result,
 * and a failed first attempt (rolled back) leaves the key free for the retry.
 *
 * The row keeps neither the key nor the answer in clear (an answer can hold a finder token): the key as its SHA-256,
 * the answer sealed with a key derived from the Idempotency-Key (sealed-answers.ts), so only a caller who sends
 * the key again can read it.
 */
@Injectable()
export class IdempotencyKeys implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(IdempotencyKeys.name);
  private purgeTimer?: NodeJS.Timeout;

  constructor(private readonly database: Database) {}

  onModuleInit(): void {
    const purge = () => void this.purgeExpired().catch((error: Error) => this.logger.warn(`purging idempotency keys failed: ${error.message}`));
    purge();
    this.purgeTimer = setInterval(purge, PURGE_INTERVAL_MS).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.purgeTimer);
  }

  /** Forgets every key a caller used (their account is erased): their first answers are no one's to replay. */
  forgetCaller(transaction: Transaction, caller: string): Promise<number> {
    // The scope is `<operation>:<caller>`; operations hold no ':' of their own past the first, callers are ids.
    return this.database.affected("DELETE FROM idempotency_keys WHERE split_part(scope, ':', 2) = $1", [caller], transaction);
  }

  /**
   * Runs `work` in a transaction; with a key, at most once: a repeat returns the first result (as JSON, so the
   * result must be what an RPC answers anyway). Without a key, `work` just runs in a transaction.
   */
  async run<T>(idempotent: IdempotentRequest | null, work: (transaction: Transaction) => Promise<T>): Promise<T> {
    if (!idempotent) return this.database.transaction(work);
    const scope = `${idempotent.operation}:${idempotent.caller}`;
    const requestHash = hashOf(idempotent.request);
    // Values written into the frame's statements (TransactionFrame), escaped: the scope and the key's and request's digests.
    const [scopeLiteral, keyLiteral] = [escapeLiteral(scope), escapeLiteral(storedIdempotencyKey(idempotent.key))];
    // The claim goes with BEGIN and the answer with COMMIT, each in its round trip (TransactionFrame), so a keyed
    // write (every finder's message from the web app) costs the database two round trips more than its work, not four.
    let sealed: string | undefined;
    return this.database.transaction(
      async (transaction, claimed) => {
        if (claimed.length === 0) return this.firstResult<T>(transaction, scope, idempotent.key, requestHash);
        const result = await work(transaction);
        sealed = JSON.stringify(sealAnswer(result, idempotent.key, scope));
        return result;
      },
      {
        // Claims the key, or takes over one past its window. If another transaction holds the key, PostgreSQL makes
        // this wait until it ends: committed, its row stands (and is locked for us, not updated); rolled back, we claim.
        opening: `INSERT INTO idempotency_keys (scope, key, request_hash)
          VALUES (${scopeLiteral}, ${keyLiteral}, ${escapeLiteral(requestHash)})
          ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, response = NULL, created_at = now()
            WHERE idempotency_keys.created_at < now() - make_interval(hours => ${IDEMPOTENCY_KEY_TTL_HOURS})
          RETURNING 1`,
        // The first answer, sealed, stored as the work commits (none when this run only read the first answer).
        closing: () => (sealed === undefined ? undefined : `UPDATE idempotency_keys SET response = ${escapeLiteral(sealed)} WHERE scope = ${scopeLiteral} AND key = ${keyLiteral}`),
      },
    );
  }

  /** Deletes keys past their window; returns how many. */
  purgeExpired(): Promise<number> {
    return this.database.affected('DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => $1)', [IDEMPOTENCY_KEY_TTL_HOURS]);
  }

  private async firstResult<T>(transaction: Transaction, scope: string, key: string, requestHash: string): Promise<T> {
    const first = (await this.database.one<{ request_hash: string; response: string }>(
      'SELECT request_hash, response FROM idempotency_keys WHERE scope = $1 AND key = $2',
      [scope, storedIdempotencyKey(key)],
      transaction,
    )) as { request_hash: string; response: string };
    if (first.request_hash !== requestHash) {
      // A client bug (one key reused for another request): answering with the first result would hide it.
      throw new RpcError({
        status: 422,
        response_code: ResponseCode.IDEMPOTENCY_KEY_REUSED,
        message: 'This Idempotency-Key was already used for a different request.',
      });
    }
    return openAnswer<T>(first.response, key, scope);
  }
}

// The same content hashes the same whatever the order of its fields; taken as JSON, as it travelled.
function hashOf(request: unknown): string {
  return createHash('sha256').update(canonicalJson(JSON.parse(JSON.stringify(request ?? null)))).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, field]) => `${JSON.stringify(name)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
