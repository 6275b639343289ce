import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export type Transaction = EntityManager;

/** Runs work in one PostgreSQL transaction; the repositories' writes take the transaction it hands out. */
@Injectable()
export class TransactionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  run<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Outside a transaction: for single statements. */
  get manager(): Transaction {
    return this.dataSource.manager;
  }
}

/**
 * The rows an `UPDATE … RETURNING` gave back. TypeORM hands the result of UPDATE and DELETE over as
 * `[rows, affectedCount]`, unlike SELECT and INSERT; this takes the rows.
 */
export async function updateReturning<T>(tx: Transaction, sql: string, parameters: unknown[]): Promise<T[]> {
  const result: unknown = await tx.query(sql, parameters);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}
