import { createECDH } from 'node:crypto';
import { revokedSessionKey } from '@homing/contracts';
import { RpcError, type RedisClient } from '@homing/platform';
import { loadNotificationsConfig } from '../config/notifications.config';
import type { PushSubscriptionsRepository } from './push-subscriptions.repository';
import { PushSubscriptionsService } from './push-subscriptions.service';

describe('push subscriptions in production configuration (S12)', () => {
  const config = loadNotificationsConfig({
    NODE_ENV: 'production',
    VAPID_PUBLIC_KEY: Buffer.alloc(65, 4).toString('base64url'),
    VAPID_PRIVATE_KEY: Buffer.alloc(32, 1).toString('base64url'),
  });
  const save = jest.fn();
  const service = new PushSubscriptionsService(config, { save, replace: save } as unknown as PushSubscriptionsRepository, { redis: { exists: async () => 0 } } as unknown as RedisClient);
  const keys = { p256dh: createECDH('prime256v1').generateKeys().toString('base64url'), auth: Buffer.alloc(16, 1).toString('base64url') };
  const userId = '019ab1c2-0000-7000-8000-000000000001';

  beforeEach(() => save.mockReset());

  it.each(['https://127.0.0.1/push/1', 'https://localhost/push/1', 'https://10.0.0.8/push', 'https://example.com/push/1', 'https://fcm.googleapis.com.example.com/x'])(
    'refuses %s with a 422 on the endpoint, storing nothing',
    async (endpoint) => {
      const refusal = await service.register({ userId }, { endpoint, keys }).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(RpcError);
      expect((refusal as RpcError).body).toMatchObject({ status: 422, validation: { endpoint: 'invalid' } });
      await expect(service.reregister(userId, undefined, { endpoint, keys })).rejects.toBeInstanceOf(RpcError);
      expect(save).not.toHaveBeenCalled();
    },
  );

  it('stores a subscription on a browser push service', async () => {
    await service.register({ conversationId: userId }, { endpoint: 'https://fcm.googleapis.com/fcm/send/abc', keys });
    expect(save).toHaveBeenCalledTimes(1);
  });

  it('stores an owner’s subscription with the session that registered it, whose revocation deletes it; a finder’s with none', async () => {
    const endpoint = 'https://fcm.googleapis.com/fcm/send/abc';
    const sessionId = '019ab1c2-0000-7000-8000-0000000000aa';
    await service.register({ userId }, { endpoint, keys }, sessionId);
    await service.reregister(userId, undefined, { endpoint, keys }, sessionId);
    await service.register({ conversationId: userId }, { endpoint, keys }, sessionId);
    expect(save.mock.calls).toEqual([
      [{ userId }, { endpoint, keys }, sessionId],
      [{ userId }, undefined, { endpoint, keys }, sessionId],
      [{ conversationId: userId }, { endpoint, keys }, undefined],
    ]);
  });

  it('refuses a p256dh key that is not a point on P-256, storing nothing', async () => {
    const offCurve = { ...keys, p256dh: Buffer.alloc(65, 4).toString('base64url') };
    const refusal = await service.register({ userId }, { endpoint: 'https://fcm.googleapis.com/fcm/send/abc', keys: offCurve }).catch((error: unknown) => error);
    expect((refusal as RpcError).body).toMatchObject({ status: 422, validation: { 'keys.p256dh': 'invalid' } });
    expect(save).not.toHaveBeenCalled();
  });
});

// An owner's subscription and the session that asked for it: an erasure revokes the sessions before it deletes the
// subscriptions, so one stored after that deletion must find its session revoked and go again.
describe('push subscriptions of an owner whose session ends meanwhile', () => {
  const config = loadNotificationsConfig({
    NODE_ENV: 'test',
    NATS_NAMESPACE: 'ns1',
    VAPID_PUBLIC_KEY: Buffer.alloc(65, 4).toString('base64url'),
    VAPID_PRIVATE_KEY: Buffer.alloc(32, 1).toString('base64url'),
  });
  const userId = '019ab1c2-0000-7000-8000-000000000002';
  const sessionId = '019ab1c2-0000-7000-8000-0000000000aa';
  const subscription = { endpoint: 'https://fcm.googleapis.com/fcm/send/abc', keys: { p256dh: createECDH('prime256v1').generateKeys().toString('base64url'), auth: Buffer.alloc(16, 1).toString('base64url') } };

  function setUp(revoked: string[]) {
    const steps: string[] = [];
    const repository = {
      save: jest.fn(async () => void steps.push('save')),
      replace: jest.fn(async () => void steps.push('replace')),
      remove: jest.fn(async () => void steps.push('remove')),
    };
    const redis = { exists: jest.fn(async (key: string) => (steps.push(`revoked? ${key}`), revoked.includes(key) ? 1 : 0)) };
    const service = new PushSubscriptionsService(config, repository as unknown as PushSubscriptionsRepository, { redis } as unknown as RedisClient);
    return { service, repository, steps };
  }

  it('keeps it when the session still lives, asking after it is stored', async () => {
    const { service, steps } = setUp([]);
    await service.register({ userId }, subscription, sessionId);
    await service.reregister(userId, undefined, subscription, sessionId);
    const asked = `revoked? ${revokedSessionKey('ns1', sessionId)}`;
    expect(steps).toEqual(['save', asked, 'replace', asked]);
  });

  it('takes it away again and answers 401 when the session was revoked meanwhile', async () => {
    const { service, repository, steps } = setUp([revokedSessionKey('ns1', sessionId)]);
    for (const call of [() => service.register({ userId }, subscription, sessionId), () => service.reregister(userId, undefined, subscription, sessionId)]) {
      const refusal = await call().catch((error: unknown) => error);
      expect((refusal as RpcError).body).toMatchObject({ status: 401, response_code: 'UNAUTHORIZED' });
    }
    expect(steps.filter((step) => !step.startsWith('revoked?'))).toEqual(['save', 'remove', 'replace', 'remove']);
    expect(repository.remove).toHaveBeenCalledWith({ userId }, subscription.endpoint);
  });

  it('asks nothing for a finder’s subscription, which has no session', async () => {
    const { service, steps } = setUp([revokedSessionKey('ns1', sessionId)]);
    await service.register({ conversationId: userId }, subscription, undefined);
    expect(steps).toEqual(['save']);
  });
});
