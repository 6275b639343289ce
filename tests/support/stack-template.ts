import { randomBytes } from 'node:crypto';
import { createDatabase, databaseNameOf, dropDatabase, runServiceCommand, type TestInfra } from '@homing/testing';

/**
 * Names the database every stack of a test run copies (set by the tiers' global setup, inherited by their workers).
 * Without it, a stack migrates a database of its own.
 */
export const STACK_TEMPLATE_VARIABLE = 'HOMING_TEST_STACK_TEMPLATE';

/** Environment of a service's `migrate` into `databaseUrl`, its schema named after the service. */
export function migrationEnv(infra: TestInfra, databaseUrl: string, service: string, namespace: string): NodeJS.ProcessEnv {
  return { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: service, NATS_URL: infra.natsUrl, REDIS_URL: infra.redisUrl, NATS_NAMESPACE: namespace, NODE_ENV: 'test' };
}

/**
 * A database with every backend service's schema migrated, once per test run: each stack then starts from a copy
 * (0.06–0.3 s) instead of running its four services' migrations (2.4 s of the stack's start, for each of about 50 stacks).
 */
export async function createStackTemplate(infra: TestInfra, services: readonly string[]): Promise<string> {
  const id = randomBytes(3).toString('hex');
  const name = `${databaseNameOf(infra.databaseUrl)}_tpl_${id}`;
  const url = await createDatabase(infra.databaseUrl, name);
  try {
    await Promise.all(services.map((service) => runServiceCommand(service, ['migrate'], migrationEnv(infra, url, service, `tpl_${id}`))));
  } catch (error) {
    await dropDatabase(infra.databaseUrl, name);
    throw error;
  }
  return name;
}
