import { createECDH } from 'node:crypto';
import { RpcError } from '@homing/platform';
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
  const service = new PushSubscriptionsService(config, { save, replace: save } as unknown as PushSubscriptionsRepository);
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

  it('refuses a p256dh key that is not a point on P-256, storing nothing', async () => {
    const offCurve = { ...keys, p256dh: Buffer.alloc(65, 4).toString('base64url') };
    const refusal = await service.register({ userId }, { endpoint: 'https://fcm.googleapis.com/fcm/send/abc', keys: offCurve }).catch((error: unknown) => error);
    expect((refusal as RpcError).body).toMatchObject({ status: 422, validation: { 'keys.p256dh': 'invalid' } });
    expect(save).not.toHaveBeenCalled();
  });
});
