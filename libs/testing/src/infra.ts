import { existsSync } from 'node:fs';

/** Where the tests' PostgreSQL, NATS and Redis are. */
export interface TestInfra {
  databaseUrl: string;
  natsUrl: string;
  redisUrl: string;
}

/**
 * Picks the services for tests: `TEST_DATABASE_URL`, `TEST_NATS_URL`, `TEST_REDIS_URL` (tools/test.mjs sets them to
 * the localhost services when they answer). Without them, a machine with a Docker engine could use
 * testcontainers; without either, fail with instructions instead of hanging on a connection.
 */
export function testInfra(env: NodeJS.ProcessEnv = process.env): TestInfra {
  const { TEST_DATABASE_URL, TEST_NATS_URL, TEST_REDIS_URL } = env;
  if (TEST_DATABASE_URL && TEST_NATS_URL && TEST_REDIS_URL) {
    return { databaseUrl: TEST_DATABASE_URL, natsUrl: TEST_NATS_URL, redisUrl: TEST_REDIS_URL };
  }
  const missing = ['TEST_DATABASE_URL', 'TEST_NATS_URL', 'TEST_REDIS_URL'].filter((name) => !env[name]);
  const docker = Boolean(env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
  throw new Error(
    `Tests need PostgreSQL, NATS (with JetStream) and Redis, and ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} unset. ` +
      'Run the tests with `npm test`, which uses the services on localhost when they answer, or set the TEST_* URLs' +
      (docker ? ' (a Docker engine is present: start the services with `docker compose up -d postgres nats redis`).' : '.'),
  );
}
