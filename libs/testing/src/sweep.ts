import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Client } from 'pg';

// What tests (isolatedName(): `t1_ab12cd`) and the benchmark (`bench_ab12cd`) leave behind when a run is aborted before
// its own clean-up: schemas `<service>_t1_ab12cd` and streams `T1_AB12CD_HOMING_EVENTS`.
const LEFTOVER_SCHEMA = /^[a-z][a-z0-9]*_(t[0-9]+|bench)_[0-9a-f]{6}$/;
const LEFTOVER_STREAM = /^(T[0-9]+|BENCH)_[0-9A-F]{6}_/;

// Other clones on the same machine share the services and may be mid-run: only what is older than any run goes.
export const SWEEP_AFTER_MS = 60 * 60 * 1000;

// PostgreSQL does not record when a schema was created: the sweep notes when it first saw one, on the schema itself.
const FIRST_SEEN = 'homing test sweep: first seen at ';

export interface SweepOptions {
  olderThanMs?: number;
  /** The current time, in ms since the epoch. */
  now?: number;
  /** Narrows the sweep further, e.g. to a test's own names. */
  only?: (name: string) => boolean;
}

export function isLeftoverSchemaName(name: string): boolean {
  return LEFTOVER_SCHEMA.test(name);
}

export function isLeftoverStreamName(name: string): boolean {
  return LEFTOVER_STREAM.test(name);
}

/** The comment the sweep puts on a test schema it sees for the first time. */
export function firstSeenComment(at: number): string {
  return `${FIRST_SEEN}${new Date(at).toISOString()}`;
}

/**
 * Drops test and benchmark schemas that the sweep first saw over `olderThanMs` ago; notes the time on those it sees
 * for the first time. Returns the schemas dropped.
 */
export async function sweepLeftoverSchemas(databaseUrl: string, { olderThanMs = SWEEP_AFTER_MS, now = Date.now(), only = () => true }: SweepOptions = {}): Promise<string[]> {
  const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
  await client.connect();
  const dropped: string[] = [];
  try {
    const { rows } = await client.query<{ name: string; note: string | null }>(
      "SELECT nspname AS name, obj_description(oid, 'pg_namespace') AS note FROM pg_namespace",
    );
    for (const { name, note } of rows) {
      if (!isLeftoverSchemaName(name) || !only(name)) continue;
      const seenAt = note?.startsWith(FIRST_SEEN) ? Date.parse(note.slice(FIRST_SEEN.length)) : NaN;
      // A run that finishes meanwhile drops its own schema: a missing schema is not an error.
      if (Number.isNaN(seenAt)) {
        await client.query(`COMMENT ON SCHEMA "${name}" IS '${firstSeenComment(now)}'`).catch(() => undefined);
      } else if (now - seenAt > olderThanMs) {
        await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
        dropped.push(name);
      }
    }
  } finally {
    await client.end();
  }
  return dropped;
}

/** Deletes test and benchmark streams created over `olderThanMs` ago. Returns the streams deleted. */
export async function sweepLeftoverStreams(natsUrl: string, { olderThanMs = SWEEP_AFTER_MS, now = Date.now(), only = () => true }: SweepOptions = {}): Promise<string[]> {
  const nc = await connect({ servers: natsUrl, timeout: 3000 });
  const deleted: string[] = [];
  try {
    const jsm = await jetstreamManager(nc);
    const old: string[] = [];
    for await (const stream of jsm.streams.list()) {
      const name = stream.config.name;
      if (isLeftoverStreamName(name) && only(name) && now - Date.parse(stream.created) > olderThanMs) old.push(name);
    }
    for (const name of old) {
      if (await jsm.streams.delete(name).catch(() => false)) deleted.push(name);
    }
  } finally {
    await nc.close();
  }
  return deleted;
}
