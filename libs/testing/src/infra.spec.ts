import { testInfra } from './infra';

describe('testInfra', () => {
  it('uses the TEST_* URLs when all are given', () => {
    expect(testInfra({ TEST_DATABASE_URL: 'postgres://db/t', TEST_NATS_URL: 'nats://n:4222', TEST_REDIS_URL: 'redis://r:6379' })).toEqual({
      databaseUrl: 'postgres://db/t',
      natsUrl: 'nats://n:4222',
      redisUrl: 'redis://r:6379',
    });
  });

  it('names what is missing and how to provide it, instead of hanging on a connection', () => {
    expect(() => testInfra({ TEST_DATABASE_URL: 'postgres://db/t' })).toThrow(/TEST_NATS_URL, TEST_REDIS_URL are unset.*npm test/);
  });
});
