import type { DataSourceOptions } from 'typeorm';
import { RPC_TIMEOUT_MS } from '../nats/rpc.client';
import { dataSourceOptions } from './database.options';

describe('dataSourceOptions', () => {
  it('gives up connecting to PostgreSQL well before an RPC caller gives up waiting', () => {
    const options = dataSourceOptions({ url: 'postgres://127.0.0.1/x', schema: 'x', applicationName: 'x', migrations: [] }) as Extract<DataSourceOptions, { type: 'postgres' }>;
    expect(options.connectTimeoutMS).toBeLessThanOrEqual(RPC_TIMEOUT_MS / 2);
  });
});
