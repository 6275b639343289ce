import { existsSync } from 'node:fs';

/** Where the tests' PostgreSQL, NATS and Redis are. */
export interface TestInfra {
  databaseUrl: string;
  natsUrl: string;
  redisUrl: string;
}

/**
 * Picks the services for tests: `TEST_DATABASE_URL`, `TEST_NATS_URL`, `TEST_REDIS_URL`, which tools/test.mjs sets to
 * the localhost services when they answer, or the Jest global setup to containers it starts where a Docker engine
 * exists (global-setup.ts). Without either, fail with instructions instead of hanging on a connection.
 */
export function testInfra(env: NodeJS.ProcessEnv = process.env): TestInfra {
  const { TEST_DATABASE_URL, TEST_NATS_URL, TEST_REDIS_URL } = env;
  if (TEST_DATABASE_URL && TEST_NATS_URL && TEST_REDIS_URL) {
    return { databaseUrl: TEST_DATABASE_URL, natsUrl: TEST_NATS_URL, redisUrl: TEST_REDIS_URL };
  }
  const missing = TEST_SERVICE_VARIABLES.filter((name) => !env[name]);
  throw new Error(
    `Tests need PostgreSQL, NATS (with JetStream) and Redis, and ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} unset. ` +
      'Run the tests with `npm test`, which uses the services on localhost when they answer, set the TEST_* URLs, ' +
      'or run them where a Docker engine is available (testcontainers starts the services).',
  );
}

export const TEST_SERVICE_VARIABLES = ['TEST_DATABASE_URL', 'TEST_NATS_URL', 'TEST_REDIS_URL'] as const;

/** True where testcontainers can start containers: a Docker socket or DOCKER_HOST. */
export function dockerEngineAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
}
