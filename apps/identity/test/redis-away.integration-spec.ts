import { randomUUID } from 'node:crypto';
import { freePort } from '@homing/testing';
import { claimsOf, IdentityHarness } from './identity-harness';

// Revocation must reach the gateways (Redis) or not happen at all: with Redis away, a logout fails with 503 and
// the session stays as it was, so the client retries instead of believing it logged out.
describe('identity with Redis away', () => {
  let identity: IdentityHarness;

  beforeAll(async () => {
    identity = new IdentityHarness({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    await identity.start({ until: 'live' });
  });
  afterAll(() => identity.stop());

  it('answers a logout with 503 and revokes nothing', async () => {
    const { loginToken } = await identity.ok('identity.rpc.ensure-user', { email: `away-${randomUUID().slice(0, 8)}@example.com`, language: 'en' });
    const { id: userId, sid } = claimsOf(loginToken as string);
    expect(await identity.refused('identity.rpc.logout', { userId, sessionId: sid })).toMatchObject({ status: 503, response_code: 'SERVICE_UNAVAILABLE' });
    expect(await identity.query('SELECT revoked_at FROM sessions WHERE id = $1', [sid])).toEqual([{ revoked_at: null }]);
  });
});
