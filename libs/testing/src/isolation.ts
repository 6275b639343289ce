import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { Client } from 'pg';

/**
 * A name unique to this test file in this worker, e.g. `t2_9f3a1c`: tests running at the same time on the same
 * PostgreSQL and NATS use it as schema suffix and NATS namespace, so they never see each other's data or events.
 */
export function isolatedName(): string {
  return `t${process.env.JEST_WORKER_ID ?? '0'}_${randomBytes(3).toString('hex')}`;
}

/** Drops the schemas a test created. */
export async function dropSchemas(databaseUrl: string, schemas: string[]): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Creates the database of a URL if it does not exist (tests share the server, not necessarily the database). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((error: { code?: string }) => {
      // Another worker created it at the same moment.
      if (error.code !== '42P04' && error.code !== '23505') throw error;
    });
  } finally {
    await client.end();
  }
}

/** Deletes the JetStream streams of a NATS namespace (`T1_AB12CD_HOMING_EVENTS`, …) that a test declared. */
export async function deleteNamespaceStreams(nc: NatsConnection, namespace: string): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const prefix = `${namespace.toUpperCase()}_`;
  for await (const stream of jsm.streams.list()) {
    if (stream.config.name.startsWith(prefix)) await jsm.streams.delete(stream.config.name);
  }
}
