import { createPublicKey } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ResponseCode, revokedSessionKey, type PushSubscriber, type PushSubscriptionBody } from '@homing/contracts';
import { InjectConfig, RedisClient, RpcError } from '@homing/platform';
import { isAllowedPushEndpoint } from '../channels/push/push-endpoints';
import type { NotificationsConfig } from '../config/notifications.config';
import { PushSubscriptionsRepository } from './push-subscriptions.repository';

/** Who may be told by push, and where: subscriptions on a known push service only (S12). */
@Injectable()
export class PushSubscriptionsService {
  constructor(
    @InjectConfig() private readonly config: NotificationsConfig,
    private readonly subscriptions: PushSubscriptionsRepository,
    private readonly redis: RedisClient,
  ) {}

  async register(subscriber: PushSubscriber, subscription: PushSubscriptionBody, sessionId?: string): Promise<void> {
    this.assertAllowed(subscription);
    await this.subscriptions.save(subscriber, subscription, 'userId' in subscriber ? sessionId : undefined);
    if ('userId' in subscriber && sessionId) await this.keptOnlyIfSessionLives(subscriber.userId, sessionId, subscription.endpoint);
  }

  async reregister(userId: string, oldEndpoint: string | undefined, subscription: PushSubscriptionBody, sessionId?: string): Promise<void> {
    this.assertAllowed(subscription);
    await this.subscriptions.replace({ userId }, oldEndpoint, subscription, sessionId);
    if (sessionId) await this.keptOnlyIfSessionLives(userId, sessionId, subscription.endpoint);
  }

  async unregister(subscriber: PushSubscriber, endpoint: string): Promise<void> {
    await this.subscriptions.remove(subscriber, endpoint);
  }

  vapidPublicKey(): { public_key: string } {
    return { public_key: this.config.VAPID_PUBLIC_KEY };
  }

  /**
   * An owner's subscription stays only if the session that asked for it is still alive once it is stored. An account's
   * erasure revokes its sessions (identity, before its commit) and only then deletes the subscriptions
   * (`notifications__user-deleted`, after the event): a request the gateway let through a moment before the
   * revocation, stored after that deletion, finds the session revoked here and takes its subscription away. Stored
   * before the deletion, the deletion takes it. The same holds for any other revocation (`notifications__sessions-revoked`
   * deletes the subscriptions stored with the session's id). Redis away: the error answers (503), and the subscription is kept.
   */
  private async keptOnlyIfSessionLives(userId: string, sessionId: string, endpoint: string): Promise<void> {
    if (!(await this.redis.redis.exists(revokedSessionKey(this.config.NATS_NAMESPACE, sessionId)))) return;
    await this.subscriptions.remove({ userId }, endpoint);
    throw new RpcError({ status: 401, response_code: ResponseCode.UNAUTHORIZED, message: 'You need to log in first.' });
  }

  private assertAllowed(subscription: PushSubscriptionBody): void {
    if (!isAllowedPushEndpoint(subscription.endpoint, this.config.PUSH_SERVICE_HOSTS)) {
      throw RpcError.validation({ endpoint: 'invalid' }, 'The endpoint is not on a known push service.');
    }
    // A key that is not a P-256 point could never be encrypted for: refuse it now, not in eight failed sends.
    if (!isP256PublicKey(subscription.keys.p256dh)) throw RpcError.validation({ 'keys.p256dh': 'invalid' });
  }
}

/** An uncompressed P-256 point (0x04 || x || y) that lies on the curve. */
function isP256PublicKey(p256dh: string): boolean {
  const raw = Buffer.from(p256dh, 'base64url');
  if (raw.length !== 65 || raw[0] !== 4) return false;
  try {
    createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33).toString('base64url') }, format: 'jwk' });
    return true;
  } catch {
    return false;
  }
}
