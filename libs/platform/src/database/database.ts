import { createHash } from 'node:crypto';
import type { OnApplicationShutdown } from '@nestjs/common';
import { Pool, type PoolClient, type QueryConfig, type QueryResult, type QueryResultRow } from 'pg';
import { poolOptions, type DatabaseOptions } from './database.options';
import { countQuery } from './query-counter';

/**
 * An open transaction (from `Database.transaction`), or none: a statement given no transaction runs on its own.
 * The outbox, the inbox and the idempotency keys take the same handle, so a feature's writes, its events and its
 * ledger row commit together.
 */
export class Transaction {
  private readonly onCommit: Array<() => void> = [];

  /** @internal The connection the transaction holds until it commits or rolls back. */
  constructor(readonly connection: PoolClient) {}

  /**
   * Runs `then` once the transaction has committed and its connection is back in the pool (never if it rolled back,
   * or if its COMMIT's answer was lost): for work that must only see committed rows, such as publishing the events it
   * recorded (OutboxWriter). `then` must not throw; it runs before `Database.transaction` resolves.
   */
  afterCommit(then: () => void): void {
    this.onCommit.push(then);
  }

  /** @internal Called by `Database.transaction` after its COMMIT. */
  committed(): void {
    for (const then of this.onCommit) {
      // The change is committed: a callback's failure must neither skip the others nor reach the caller as a failure.
      try {
        then();
      } catch (error) {
        process.emitWarning(`an after-commit callback failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  /** The rows of one statement in this transaction (a projection's upsert: applyIfNewer), counted like any other. */
  async query<Row = unknown>(sql: Statement, parameters: readonly unknown[] = []): Promise<Row[]> {
    countQuery();
    return (await sendQuery(this.connection, sql, parameters)).rows as Row[];
  }
}

/**
 * Statements `Database.transaction` sends in the round trips of its BEGIN and its COMMIT (PostgreSQL's simple query
 * protocol: no parameters, so every value in them is one the caller made safe with pg's `escapeLiteral`). For the
 * statements every keyed write has around its work (the idempotency key's claim and its answer): two round trips
 * fewer, each a wait for PostgreSQL and a wake-up of the service on a busy core (B3).
 */
export interface TransactionFrame<T> {
  /** Run right after BEGIN, in its round trip; its rows are handed to the work. */
  opening: string;
  /** Made from the work's answer and run right before COMMIT, in its round trip; none: COMMIT alone. */
  closing?: (answer: T) => string | undefined;
}

/** A named prepared statement: parsed and planned once per connection, for the hottest reads (the tag scan). */
export interface NamedStatement {
  name: string;
  text: string;
}

/** A statement as repositories pass it: SQL text, or a statement of fixed text made by `prepared`. */
export type Statement = string | NamedStatement;

const preparedByText = new Map<string, NamedStatement>();

/**
 * A statement of fixed text that each pooled connection parses once and keeps, for the statements every finder's
 * message runs (B3): PostgreSQL parses and plans an unnamed statement on every execution, which cost 111–115 µs of
 * its CPU a statement against 60 µs named (docs/benchmarks.md). Only for text that never changes at run time (each
 * distinct text stays prepared on every connection that ran it) and that names its columns (a `*` would change its
 * result when a migration adds one, which a prepared statement refuses until its connection is replaced). The name is
 * the text's digest, so two modules that prepare the same text share it and different texts never collide; a text
 * prepared again (one put together per call from fixed parts) is the statement made the first time.
 */
export function prepared(text: string): NamedStatement {
  let statement = preparedByText.get(text);
  if (!statement) preparedByText.set(text, (statement = { name: `homing_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`, text }));
  return statement;
}

// pg copies a query given as an object, property by property (its cloneQueryConfig: 2.4 % of messaging's CPU in
// B3), and takes a text as it is: only a prepared statement, which needs its name, goes as an object.
function sendQuery(on: Pool | PoolClient, sql: Statement, parameters: readonly unknown[]): Promise<QueryResult> {
  return typeof sql === 'string' ? on.query(sql, [...parameters]) : on.query({ name: sql.name, text: sql.text, values: [...parameters] });
}

/**
 * The one way a repository reaches PostgreSQL: plain SQL in, rows, one row or the affected count out, each given
 * a transaction or none, on the service's pg pool (its schema as the search path, a statement timeout: poolOptions).
 * Migrations alone use TypeORM (`main.js migrate`), so it stays off every service's start path (B8). Provided by the
 * platform's database module, which makes it with the service's options.
 */
export class Database implements OnApplicationShutdown {
  private readonly pool: Pool;

  constructor(options: DatabaseOptions) {
    this.pool = new Pool(poolOptions(options));
    // An idle connection that breaks (a database restart) is an error to log, not a crashed process; the pool drops it.
    this.pool.on('error', (error) => options.logger?.error(`database pool error: ${error.message}`));
  }

  /** Every row the statement returns (a `RETURNING` clause for writes). */
  async rows<Row>(sql: Statement, parameters: readonly unknown[] = [], transaction?: Transaction): Promise<Row[]> {
    return (await this.run(sql, parameters, transaction)).rows as Row[];
  }

  /** The first row the statement returns, or undefined when none. */
  async one<Row>(sql: Statement, parameters: readonly unknown[] = [], transaction?: Transaction): Promise<Row | undefined> {
    return (await this.rows<Row>(sql, parameters, transaction))[0];
  }

  /** How many rows an INSERT, UPDATE or DELETE wrote. */
  async affected(sql: Statement, parameters: readonly unknown[] = [], transaction?: Transaction): Promise<number> {
    return (await this.run(sql, parameters, transaction)).rowCount ?? 0;
  }

  /**
   * Runs work in one transaction on a connection of its own: committed when it resolves, rolled back when it throws.
   * A connection whose rollback failed (the database went away) is closed rather than given back to the pool. With a
   * `frame`, its opening statement goes with BEGIN (the work gets its rows) and its closing one with COMMIT.
   */
  async transaction<T>(work: (transaction: Transaction, opened: QueryResultRow[]) => Promise<T>, frame?: TransactionFrame<T>): Promise<T> {
    const connection = await this.pool.connect();
    const transaction = new Transaction(connection);
    let broken: Error | undefined;
    let answer: T;
    try {
      let opened: QueryResultRow[] = [];
      if (frame) opened = (await sendTogether(connection, ['BEGIN', frame.opening]))[1].rows;
      else await this.run('BEGIN', [], transaction);
      answer = await work(transaction, opened);
      const closing = frame?.closing?.(answer);
      // PostgreSQL answers COMMIT in a transaction a failed statement aborted with ROLLBACK, not an error: work that
      // went on after catching one must not be taken for committed (nor its after-commit callbacks run).
      const { command } = closing ? (await sendTogether(connection, [closing, 'COMMIT']))[1] : await this.run('COMMIT', [], transaction);
      if (command !== 'COMMIT') throw new Error(`the transaction was rolled back (${command}): one of its statements failed`);
    } catch (error) {
      // A connection whose prepared statement went stale fails it on every use: close it (pg's pool already closes
      // one after any failure outside a transaction).
      if (isStalePreparedStatement(error)) broken = error;
      await this.run('ROLLBACK', [], transaction).catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw error;
    } finally {
      connection.release(broken);
    }
    transaction.committed();
    return answer;
  }

  /**
   * A named prepared statement whose rows come as arrays of the selected columns, in order: pg builds no object per
   * row (its `addFields`), for the hottest read (the scan's lookup: B1). The caller maps the columns by position.
   */
  async namedArrays(statement: NamedStatement, values: readonly unknown[]): Promise<unknown[][]> {
    return this.onPool<unknown[]>({ ...statement, values: [...values], rowMode: 'array' });
  }

  /**
   * A pooled connection of `work`'s own, for several statements in one round trip (the outbox relay's batch, B3).
   * Released however the work ends; one that failed is closed rather than reused, since it may be left inside a
   * transaction.
   */
  async withConnection<T>(work: (connection: RawConnection) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      const answer = await work(new RawConnection(client));
      client.release();
      return answer;
    } catch (error) {
      client.release(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
  }

  /** Closes the pool once the service's work has stopped (Nest calls it last, after consumers and the relay). */
  async onApplicationShutdown(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }

  private async onPool<Row extends QueryResultRow | unknown[]>(query: QueryConfig & { rowMode?: 'array' }): Promise<Row[]> {
    countQuery();
    return (await this.pool.query(query)).rows as Row[];
  }

  private run(sql: Statement, parameters: readonly unknown[], transaction: Transaction | undefined): Promise<QueryResult> {
    countQuery();
    return sendQuery(transaction?.connection ?? this.pool, sql, parameters);
  }
}

/**
 * PostgreSQL refuses a prepared statement whose result a migration changed (a column it returns of another type:
 * "cached plan must not change result type"), on the connection that prepared it, for as long as that connection
 * lives; and one the server no longer has (26000) likewise. Only a new connection prepares it afresh.
 */
function isStalePreparedStatement(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  const { code, routine } = error as { code?: unknown; routine?: unknown };
  // The routine names the check whatever language the server's messages are in.
  return (code === '0A000' && (routine === 'RevalidateCachedQuery' || error.message.includes('cached plan must not change result type'))) || code === '26000';
}

/**
 * Statements in one round trip (PostgreSQL's simple query protocol: no parameters, so every value in them is one the
 * caller made safe), each counted; their results in order. A transaction's frame and the outbox relay's batch.
 */
async function sendTogether(client: PoolClient, sql: readonly string[]): Promise<QueryResult[]> {
  for (let index = 0; index < sql.length; index += 1) countQuery();
  const results = (await client.query(sql.join(';\n'))) as unknown as QueryResult | QueryResult[];
  return Array.isArray(results) ? results : [results];
}

/** One connection of `Database.withConnection`. */
export class RawConnection {
  constructor(private readonly client: PoolClient) {}

  /**
   * Sends the statements in one round trip (PostgreSQL's simple query protocol: no parameters, so every value in them
   * is one the caller made safe) and answers each one's rows, in order. Each statement is counted.
   */
  async statements<Row extends QueryResultRow = QueryResultRow>(sql: readonly string[]): Promise<Row[][]> {
    return (await sendTogether(this.client, sql)).map((result) => result.rows as Row[]);
  }

  /** The rows of one parameterised statement on this connection (inside the transaction its statements began). */
  async rows<Row extends QueryResultRow = QueryResultRow>(sql: string, parameters: readonly unknown[]): Promise<Row[]> {
    countQuery();
    return (await this.client.query<Row>(sql, [...parameters])).rows;
  }
}

/** Opens the service's database for a command (seed, print), hands it over, and closes it however the work ends. */
export async function withDatabase<T>(options: DatabaseOptions, work: (database: Database) => Promise<T>): Promise<T> {
  const database = new Database(options);
  try {
    return await work(database);
  } finally {
    await database.onApplicationShutdown();
  }
}
