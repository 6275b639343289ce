import { baseEnvSchema, loadConfig, type BaseConfig } from '../src';

/** A service's base config for in-process tests: quiet logs, the test NATS, an isolated namespace. */
export function testConfig(natsUrl: string, natsNamespace: string): BaseConfig {
  return loadConfig(baseEnvSchema, { NODE_ENV: 'test', LOG_LEVEL: 'silent', NATS_URL: natsUrl, NATS_NAMESPACE: natsNamespace });
}
