import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { dropSchemas, ensureDatabase, isolatedName, runServiceCommand, testInfra } from '@homing/testing';
import { BACKEND_SERVICES, type BackendService } from '../support/stack';

const PRIVACY_MAP = resolve(__dirname, '../../docs/privacy.md');

/** `schema.table.column` names in backticks, e.g. `messaging.conversations.finder_email`. */
function columnsNamedIn(markdown: string): Set<string> {
  const schemas = BACKEND_SERVICES.join('|');
  return new Set([...markdown.matchAll(new RegExp(`\`((?:${schemas})\\.[a-z0-9_]+\\.[a-z0-9_]+)\``, 'g'))].map((match) => match[1]));
}

/**
 * docs/privacy.md is the data map: every column of every service's schema is named in it, either where the personal
 * datum it holds is described or in the list of columns that hold none. A migration that adds a column without
 * mapping it fails here, and so does a map that names a column no schema has: the map cannot go stale.
 */
describe('the data map in docs/privacy.md', () => {
  const infra = testInfra();
  const namespace = isolatedName();
  const schemaOf = (service: BackendService) => `${service}_${namespace}`;
  let columns: string[] = [];

  beforeAll(async () => {
    await ensureDatabase(infra.databaseUrl);
    for (const service of BACKEND_SERVICES) {
      await runServiceCommand(service, ['migrate'], { DATABASE_URL: infra.databaseUrl, DATABASE_SCHEMA: schemaOf(service), NATS_URL: infra.natsUrl, REDIS_URL: infra.redisUrl, NATS_NAMESPACE: namespace, NODE_ENV: 'test' });
    }
    const db = new Client({ connectionString: infra.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ schema: string; table: string; column: string }>(
        `SELECT table_schema AS schema, table_name AS table, column_name AS column FROM information_schema.columns
          WHERE table_schema = ANY($1) AND table_name <> 'migrations' ORDER BY 1, 2, 3`,
        [BACKEND_SERVICES.map(schemaOf)],
      );
      columns = rows.map(({ schema, table, column }) => `${schema.slice(0, schema.length - namespace.length - 1)}.${table}.${column}`);
    } finally {
      await db.end();
    }
  });

  afterAll(() => dropSchemas(infra.databaseUrl, BACKEND_SERVICES.map(schemaOf)));

  it('names every column of every schema', () => {
    expect(columns.length).toBeGreaterThan(50);
    const named = columnsNamedIn(readFileSync(PRIVACY_MAP, 'utf8'));
    expect(columns.filter((column) => !named.has(column))).toEqual([]);
  });

  it('names no column that no schema has', () => {
    const existing = new Set(columns);
    const named = columnsNamedIn(readFileSync(PRIVACY_MAP, 'utf8'));
    expect([...named].filter((column) => !existing.has(column))).toEqual([]);
  });
});
