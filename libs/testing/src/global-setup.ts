import { dockerEngineAvailable, TEST_SERVICE_VARIABLES } from './infra';

interface Stoppable {
  stop(): Promise<unknown>;
}

// Shared with global-teardown through globalThis: Jest may load the two files as separate modules.
const registry = globalThis as typeof globalThis & { __homingTestContainers?: Stoppable[] };

/**
 * Jest global setup of the integration and end-to-end tiers. When the TEST_* URLs are not given and a Docker engine
 * exists, starts PostgreSQL 15, NATS 2.10 with JetStream and Redis 7 in containers and points the tests at them.
 * Otherwise does nothing, and `testInfra()` explains what is missing.
 */
export default async function globalSetup(): Promise<void> {
  if (TEST_SERVICE_VARIABLES.every((name) => process.env[name]) || !dockerEngineAvailable()) return;
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

export async function stopContainers(): Promise<void> {
  const containers = registry.__homingTestContainers ?? [];
  registry.__homingTestContainers = [];
  await Promise.all(containers.map((container) => container.stop()));
}
