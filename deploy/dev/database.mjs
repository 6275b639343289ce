// The application database for `npm start`. Each service creates and migrates its own schema inside it
// (`main.js migrate`), but none creates the database itself: in production that is the platform's job.
import pg from 'pg';
import { maintenanceDatabaseUrl } from './preflight.mjs';

const DUPLICATE_DATABASE = '42P04';

/** The database named by the URL's path, e.g. `homing` in postgres://…/homing. */
export function databaseName(databaseUrl) {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database (expected postgres://user@host:port/<database>)');
  return name;
}

/** Creates the URL's database unless it exists; resolves true if it was created now. */
export async function ensureDatabase(databaseUrl) {
  const name = databaseName(databaseUrl);
  const client = new pg.Client({ connectionString: maintenanceDatabaseUrl(databaseUrl), connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (existing.rowCount > 0) return false;
    try {
      // CREATE DATABASE takes no bind parameters: the name is quoted as an identifier instead.
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      return true;
    } catch (error) {
      if (error.code === DUPLICATE_DATABASE) return false; // created meanwhile by another run
      throw new Error(`could not create database "${name}": ${error.message}`, { cause: error });
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
