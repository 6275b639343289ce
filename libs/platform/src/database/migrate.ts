import { Client } from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';

/**
 * Creates the service's schema if needed and runs its pending migrations, each in its own transaction.
 * An advisory lock keyed on the schema lets several replicas (or a Job and a replica) start at once safely.
 * Returns the names of the migrations it ran.
 */
export async function migrateSchema(options: DataSourceOptions & { type: 'postgres' }): Promise<string[]> {
  const schema = options.schema;
  if (!schema) throw new Error('a service database needs a schema');
  const admin = new Client({ connectionString: options.url, connectionTimeoutMillis: 5000 });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [`migrate:${schema}`]);
    await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const dataSource = new DataSource({ ...options, migrationsTransactionMode: 'each' });
    await dataSource.initialize();
    try {
      const ran = await dataSource.runMigrations({ transaction: 'each' });
      return ran.map((migration) => migration.name);
    } finally {
      await dataSource.destroy();
    }
  } finally {
    await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [`migrate:${schema}`]).catch(() => undefined);
    await admin.end();
  }
}
