import { dockerEngineAvailable, TEST_SERVICE_VARIABLES, testInfra } from './infra';
import { ensureDatabase } from './isolation';
import { sweepLeftoverDatabases, sweepLeftoverSchemas, sweepLeftoverStreams } from './sweep';

interface Stoppable {
  stop(): Promise<unknown>;
}

// Shared with global-teardown through globalThis: Jest may load the two files as separate modules.
const registry = globalThis as typeof globalThis & { __homingTestContainers?: Stoppable[] };

/**
 * Jest global setup of the integration and end-to-end tiers. When the TEST_* URLs are not given and a Docker engine
 * exists, starts PostgreSQL 15, NATS 2.10 with JetStream and Redis 7 in containers and points the tests at them.
 * With the services given, first sweeps what aborted runs left on them. Otherwise does nothing, and `testInfra()`
 * explains what is missing.
 */
export default async function globalSetup(): Promise<void> {
  if (TEST_SERVICE_VARIABLES.every((name) => process.env[name])) {
    await sweepLeftovers();
    return;
  }
  if (!dockerEngineAvailable()) return;
  const { GenericContainer, Wait } = await import('testcontainers');
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const { RedisContainer } = await import('@testcontainers/redis');
  const [postgres, nats, redis] = await Promise.all([
    new PostgreSqlContainer('postgres:15').withDatabase('homing_test').withUsername('postgres').withPassword('postgres').start(),
    new GenericContainer('nats:2.10').withCommand(['-js']).withExposedPorts(4222).withWaitStrategy(Wait.forLogMessage(/Server is ready/)).start(),
    new RedisContainer('redis:7').start(),
  ]);
  registry.__homingTestContainers = [postgres, nats, redis];
  // Workers are started after global setup and inherit these.
  process.env.TEST_DATABASE_URL = postgres.getConnectionUri();
  process.env.TEST_NATS_URL = `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`;
  process.env.TEST_REDIS_URL = redis.getConnectionUrl();
}

/** Schemas, databases and streams of test runs aborted over an hour ago (sweep.ts); a service that does not answer is left to the tests to report. */
async function sweepLeftovers(): Promise<void> {
  const { databaseUrl, natsUrl } = testInfra();
  const results = await Promise.allSettled([
    ensureDatabase(databaseUrl).then(() => sweepLeftoverSchemas(databaseUrl)),
    sweepLeftoverDatabases(databaseUrl),
    sweepLeftoverStreams(natsUrl),
  ]);
  const [schemas, databases, streams] = results.map((result) => (result.status === 'fulfilled' ? result.value : []));
  const swept = [...schemas.map((name) => `schema ${name}`), ...databases.map((name) => `database ${name}`), ...streams.map((name) => `stream ${name}`)];
  if (swept.length > 0) {
    process.stdout.write(`\nSwept leftovers of aborted test runs: ${swept.join(', ')}\n`);
  }
  for (const result of results) {
    if (result.status === 'rejected') process.stdout.write(`\nSweeping test leftovers skipped: ${(result.reason as Error).message}\n`);
  }
}

export async function stopContainers(): Promise<void> {
  const containers = registry.__homingTestContainers ?? [];
  registry.__homingTestContainers = [];
  await Promise.all(containers.map((container) => container.stop()));
}
