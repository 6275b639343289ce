import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Client } from 'pg';
import { databaseNameOf, databaseUrlOf } from './isolation';

// What tests (isolatedName(): `t1_ab12cd`) and the benchmark (`bench_ab12cd`) leave behind when a run is aborted before
// its own clean-up: schemas `<service>_t1_ab12cd`, streams `T1_AB12CD_HOMING_EVENTS`, and the databases of stacks
// (`<test database>_t1_ab12cd`) and of their template (`<test database>_tpl_ab12cd`, tests/support/stack-template.ts).
const LEFTOVER_SCHEMA = /^[a-z][a-z0-9]*_(t[0-9]+|bench)_[0-9a-f]{6}$/;
const LEFTOVER_DATABASE_SUFFIX = /^_(t[0-9]+|tpl)_[0-9a-f]{6}$/;
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

/** Whether `name` is a stack's or a template's database beside the test database `testDatabase`. */
export function isLeftoverDatabaseName(name: string, testDatabase: string): boolean {
  return name.startsWith(testDatabase) && LEFTOVER_DATABASE_SUFFIX.test(name.slice(testDatabase.length));
}

export function isLeftoverStreamName(name: string): boolean {
  return LEFTOVER_STREAM.test(name);
}

/** The comment the sweep puts on a test schema or database it sees for the first time. */
export function firstSeenComment(at: number): string {
  return `${FIRST_SEEN}${new Date(at).toISOString()}`;
}

/** What the sweep of one kind of PostgreSQL object (schemas, databases) needs to know. */
interface SweptKind {
  /** Where to connect: the objects' database, or the server's `postgres` for databases. */
  connectTo: string;
  /** Lists every object as `name` with its comment as `note`. */
  list: string;
  isLeftover(name: string): boolean;
  /** `COMMENT ON SCHEMA` or `COMMENT ON DATABASE`. */
  kind: 'SCHEMA' | 'DATABASE';
  drop(name: string): string;
}

/**
 * Drops the objects of a kind that the sweep first saw over `olderThanMs` ago; notes the time on those it sees for
 * the first time (PostgreSQL does not record when they were made). Returns the objects dropped.
 */
async function sweepFirstSeen(swept: SweptKind, { olderThanMs = SWEEP_AFTER_MS, now = Date.now(), only = () => true }: SweepOptions): Promise<string[]> {
  const client = new Client({ connectionString: swept.connectTo, connectionTimeoutMillis: 3000 });
  await client.connect();
  const dropped: string[] = [];
  try {
    const { rows } = await client.query<{ name: string; note: string | null }>(swept.list);
    for (const { name, note } of rows) {
      if (!swept.isLeftover(name) || !only(name)) continue;
      const seenAt = note?.startsWith(FIRST_SEEN) ? Date.parse(note.slice(FIRST_SEEN.length)) : NaN;
      // A run that finishes meanwhile drops its own: a missing object is not an error.
      if (Number.isNaN(seenAt)) {
        await client.query(`COMMENT ON ${swept.kind} "${name}" IS '${firstSeenComment(now)}'`).catch(() => undefined);
      } else if (now - seenAt > olderThanMs) {
        await client.query(swept.drop(name));
        dropped.push(name);
      }
    }
  } finally {
    await client.end();
  }
  return dropped;
}

/** Drops test and benchmark schemas that the sweep first saw over `olderThanMs` ago. Returns the schemas dropped. */
export function sweepLeftoverSchemas(databaseUrl: string, options: SweepOptions = {}): Promise<string[]> {
  return sweepFirstSeen(
    {
      connectTo: databaseUrl,
      list: "SELECT nspname AS name, obj_description(oid, 'pg_namespace') AS note FROM pg_namespace",
      isLeftover: isLeftoverSchemaName,
      kind: 'SCHEMA',
      drop: (name) => `DROP SCHEMA IF EXISTS "${name}" CASCADE`,
    },
    options,
  );
}

/**
 * Drops the stack and template databases beside the test database of `databaseUrl` that the sweep first saw over
 * `olderThanMs` ago. Returns the databases dropped.
 */
export function sweepLeftoverDatabases(databaseUrl: string, options: SweepOptions = {}): Promise<string[]> {
  const testDatabase = databaseNameOf(databaseUrl);
  return sweepFirstSeen(
    {
      connectTo: databaseUrlOf(databaseUrl, 'postgres'),
      list: "SELECT datname AS name, shobj_description(oid, 'pg_database') AS note FROM pg_database",
      isLeftover: (name) => isLeftoverDatabaseName(name, testDatabase),
      kind: 'DATABASE',
      drop: (name) => `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`,
    },
    options,
  );
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
