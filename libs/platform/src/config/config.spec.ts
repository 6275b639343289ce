import { z } from 'zod';
import { baseEnvSchema, ConfigError, databaseEnvSchema, envSchemas, loadConfig } from './config';

const schema = baseEnvSchema.extend(databaseEnvSchema.shape).extend({ PORT: envSchemas.port.default(3002) });

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig(schema, {});
    expect(config).toMatchObject({
      NODE_ENV: 'development',
      PORT: 3002,
      NATS_URL: 'nats://127.0.0.1:4222',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/homing',
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('lists every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig(schema, { PORT: 'eighty', NATS_URL: 'http://nats', DATABASE_URL: 'mysql://db', LOG_LEVEL: 'loud' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.map((problem) => problem.split(':')[0]).sort();
    expect(problems).toEqual(['DATABASE_URL', 'LOG_LEVEL', 'NATS_URL', 'PORT']);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig(z.object({ PORT: envSchemas.port.default(1) }), { PORT: '' }).PORT).toBe(1);
  });
});
