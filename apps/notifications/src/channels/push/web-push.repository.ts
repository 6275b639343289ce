import { Injectable } from '@nestjs/common';
import webpush, { WebPushError } from 'web-push';
import type { PushPayload } from '@homing/contracts';
import { InjectConfig } from '@homing/platform';
import type { NotificationsConfig } from '../../config/notifications.config';
import type { StoredPushSubscription } from '../../push-subscriptions/push-subscriptions.repository';
import { VapidAuthorizations } from './vapid-authorizations';

// A push older than a day is noise: the push service drops it rather than deliver it late.
const TTL_SECONDS = 24 * 60 * 60;
// A hung push service must not hold a job past its 15 s lock: fail and retry instead.
const TIMEOUT_MS = 10_000;
// The longest a 429's Retry-After is honoured before trying again anyway.
const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

/** How a push service refused: `gone` deletes the subscription, `retryAfterMs` waits, `permanent` gives up. */
export class PushRefusedError extends Error {
  constructor(
    readonly statusCode: number | undefined,
    readonly outcome: 'gone' | 'rate-limited' | 'permanent' | 'temporary',
    readonly retryAfterMs?: number,
  ) {
    super(`push service ${statusCode ?? 'unreachable'} (${outcome})`);
    this.name = 'PushRefusedError';
  }
}

/**
 * web-push with VAPID: encrypts the payload for the subscription (RFC 8291, aes128gcm) and hands it to its push service,
 * with that push service's VAPID header signed once an hour (VapidAuthorizations), not by web-push on every send.
 */
@Injectable()
export class WebPushRepository {
  private readonly authorizations: VapidAuthorizations;

  constructor(@InjectConfig() config: NotificationsConfig) {
    this.authorizations = new VapidAuthorizations({ subject: config.VAPID_SUBJECT, publicKey: config.VAPID_PUBLIC_KEY, privateKey: config.VAPID_PRIVATE_KEY });
  }

  async send(subscription: StoredPushSubscription, payload: PushPayload): Promise<void> {
    try {
      await webpush.sendNotification({ endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } }, JSON.stringify(payload), {
        TTL: TTL_SECONDS,
        // No vapidDetails (and no global ones: setVapidDetails is never called), so web-push signs nothing itself.
        headers: { Authorization: this.authorizations.headerFor(subscription.endpoint) },
        contentEncoding: 'aes128gcm',
        timeout: TIMEOUT_MS,
      });
    } catch (error) {
      throw classifyPushError(error);
    }
  }
}

/**
 * 404 and 410: the subscription is gone for good (delete it). 429: the push service asks to wait (Retry-After, in
 * seconds or as a date). Other 4xx: the request itself is wrong, retrying cannot help. 5xx and network failures:
 * temporary. The message keeps the status only: a push service's body may quote the endpoint.
 */
export function classifyPushError(error: unknown, now = Date.now()): PushRefusedError {
  if (!(error instanceof WebPushError)) return new PushRefusedError(undefined, 'temporary');
  const { statusCode } = error;
  if (statusCode === 404 || statusCode === 410) return new PushRefusedError(statusCode, 'gone');
  if (statusCode === 429) return new PushRefusedError(statusCode, 'rate-limited', retryAfterMs(error.headers?.['retry-after'], now));
  if (statusCode >= 400 && statusCode < 500) return new PushRefusedError(statusCode, 'permanent');
  return new PushRefusedError(statusCode, 'temporary');
}

/** Retry-After as seconds or an HTTP date, capped; without one (or unreadable), a minute. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number {
  const seconds = header && /^\d+$/.test(header.trim()) ? Number(header.trim()) * 1000 : header ? Date.parse(header) - now : NaN;
  if (!Number.isFinite(seconds)) return 60_000;
  return Math.min(Math.max(seconds, 1000), MAX_RETRY_AFTER_MS);
}
