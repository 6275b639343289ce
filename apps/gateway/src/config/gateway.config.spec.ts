import { ConfigError } from '@homing/platform';
import { testKeys } from '@homing/testing';
import { loadGatewayConfig } from './gateway.config';

describe('loadGatewayConfig', () => {
  const env = { JWT_PUBLIC_KEY: testKeys().JWT_PUBLIC_KEY };

  it('sends stream heartbeats every 15 s unless told otherwise', () => {
    expect(loadGatewayConfig(env).SSE_HEARTBEAT_MS).toBe(15_000);
    expect(loadGatewayConfig({ ...env, SSE_HEARTBEAT_MS: '200' }).SSE_HEARTBEAT_MS).toBe(200);
  });

  it('refuses a heartbeat interval that is no whole number of milliseconds, too short or longer than proxies wait', () => {
    for (const value of ['soon', '1.5', '0', '60001']) expect(() => loadGatewayConfig({ ...env, SSE_HEARTBEAT_MS: value })).toThrow(ConfigError);
  });
});
