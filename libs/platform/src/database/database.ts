import { Injectable } from '@nestjs/common';
import type { Pool, PoolClient, QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { DataSource, type EntityManager, type QueryRunner } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { dataSourceOptions, type DatabaseOptions } from './database.options';
import { countQuery } from './query-counter';

/**
 * An open transaction (from `Database.transaction`), or none: a statement given no transaction runs on its own.
 * The outbox, the inbox and the idempotency keys take the same handle, so a feature's writes, its events and its
 * ledger row commit together.
 */
export type Transaction = EntityManager;

/** A named prepared statement: parsed and planned once per connection, for the hottest reads (the tag scan). */
export interface NamedStatement {
  name: string;
  text: string;
}

/**
 * The one way a repository reaches PostgreSQL: plain SQL in, rows, one row or the affected count out, each given
 * a transaction or none. TypeORM's own `query()` answers UPDATE and DELETE as `[rows, count]` but SELECT and
 * INSERT as rows, and never gives INSERT's count; here every statement runs as a structured result, so callers
 * never guess the shape.
 */
@Injectable()
export class Database {
  constructor(private readonly dataSource: DataSource) {}

  /** Every row the statement returns (a `RETURNING` clause for writes). */
  async rows<Row>(sql: string, parameters: readonly unknown[] = [], transaction?: Transaction): Promise<Row[]> {
    return (await this.run(sql, parameters, transaction)).records as Row[];
  }

  /** The first row the statement returns, or undefined when none. */
  async one<Row>(sql: string, parameters: readonly unknown[] = [], transaction?: Transaction): Promise<Row | undefined> {
    return (await this.rows<Row>(sql, parameters, transaction))[0];
  }

  /** How many rows an INSERT, UPDATE or DELETE wrote. */
  async affected(sql: string, parameters: readonly unknown[] = [], transaction?: Transaction): Promise<number> {
    return (await this.run(sql, parameters, transaction)).affected ?? 0;
  }

  /** Runs work in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Runs a named prepared statement straight on the pool TypeORM holds (TypeORM cannot name a statement), counted
   * like any other query.
   */
  async named<Row extends QueryResultRow>(statement: NamedStatement, values: readonly unknown[]): Promise<Row[]> {
    return this.onPool<Row>({ ...statement, values: [...values] });
  }

  /**
   * A named prepared statement whose rows come as arrays of the selected columns, in order: pg builds no object per
   * row (its `addFields`), for the hottest read (the scan's lookup: B1). The caller maps the columns by position.
   */
  async namedArrays(statement: NamedStatement, values: readonly unknown[]): Promise<unknown[][]> {
    return this.onPool<unknown[]>({ ...statement, values: [...values], rowMode: 'array' });
  }

  /**
   * A pooled connection of `work`'s own, for what TypeORM cannot send: several statements in one round trip (the
   * outbox relay's batch, B3). Released however the work ends; one that failed is closed rather than reused, since it
   * may be left inside a transaction.
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

  // Straight on the pool TypeORM holds, counted like any other query.
  private async onPool<Row extends QueryResultRow | unknown[]>(query: QueryConfig & { rowMode?: 'array' }): Promise<Row[]> {
    countQuery();
    return (await this.pool.query(query)).rows as Row[];
  }

  // The pg pool TypeORM holds.
  private get pool(): Pool {
    return (this.dataSource.driver as PostgresDriver).master as Pool;
  }

  private async run(sql: string, parameters: readonly unknown[], transaction: Transaction | undefined) {
    const inTransaction = transaction?.queryRunner;
    const runner: QueryRunner = inTransaction ?? this.dataSource.createQueryRunner();
    try {
      return await runner.query(sql, [...parameters], true);
    } finally {
      if (!inTransaction) await runner.release();
    }
  }
}

/** One connection of `Database.withConnection`. */
export class RawConnection {
  constructor(private readonly client: PoolClient) {}

  /**
   * Sends the statements in one round trip (PostgreSQL's simple query protocol: no parameters, so every value in them
   * is one the caller made safe) and answers each one's rows, in order. Each statement is counted.
   */
  async statements<Row extends QueryResultRow = QueryResultRow>(sql: readonly string[]): Promise<Row[][]> {
    for (let index = 0; index < sql.length; index += 1) countQuery();
    const results = (await this.client.query(sql.join(';\n'))) as unknown as QueryResult<Row> | QueryResult<Row>[];
    return (Array.isArray(results) ? results : [results]).map((result) => result.rows);
  }
}

/** Opens the service's database for a command (seed, print), hands it over, and closes it however the work ends. */
export async function withDatabase<T>(options: DatabaseOptions, work: (database: Database) => Promise<T>): Promise<T> {
  const dataSource = new DataSource(dataSourceOptions(options));
  await dataSource.initialize();
  try {
    return await work(new Database(dataSource));
  } finally {
    await dataSource.destroy();
  }
}
