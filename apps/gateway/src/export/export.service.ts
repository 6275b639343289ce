import { Injectable } from '@nestjs/common';
import type { RpcRequest, RpcResponse, RpcSubject, UserExport } from '@homing/contracts';
import { RpcClient, RpcTimeoutError, RpcUnavailableError } from '@homing/platform';
import type { AuthenticatedUser } from '../auth/authenticated-user';

/** What each section of the file holds, for a reader who opens it without the product at hand. */
export const EXPORT_ABOUT = {
  account: 'Your account: e-mail address, language, when it was made, whether it has a password, whether it is an admin.',
  sessions: 'Each time you logged in: when, when it was last used, when it expires or was ended, and the passkey you logged in with, if you did. No tokens.',
  passkeys: 'Your passkeys: the name you gave each (or none), the password manager it is kept in where known, whether it is synced, when it was added and last used. Never its key.',
  mail_requests: 'Login codes and password links asked for in your name over the last day (kind and time), kept for the sending limits.',
  items: 'Your items: tag code, name, reward (in cents), when created and activated, photo links, lost mode and its note, and the scans of the last 30 days (time, city, country, kind of device).',
  shared_items: 'Items someone else owns and shares with you: tag code, name, and since when you share it.',
  conversations: 'The conversations about the items you own or share with every message, the places finders shared, and when each was delivered and read. Finders are shown as "finder" only: their e-mail address and language are theirs, not yours; their contact details stay masked unless both sides agreed to share them.',
  push_subscriptions: 'Browsers that receive your notifications: the push service and the last 8 characters of the address. No keys.',
  notifications_sent: 'E-mails and pushes sent to you: kind, channel, status and time. Not their content or addresses.',
  notification_settings: 'For each item you turned e-mail or push off for: what you chose, and when.',
} as const satisfies Record<Exclude<keyof UserExport, 'exported_at' | 'about'>, string>;

/** `homing-export-<yyyy-mm-dd>.json`, dated in UTC like `exported_at`. */
export function exportFileName(exportedAt: Date): string {
  return `homing-export-${exportedAt.toISOString().slice(0, 10)}.json`;
}

/**
 * An owner's data export: one RPC per service, all of which must answer. A service that does not is a 503 for the
 * whole export (a timeout too): a partial file would look complete to the person reading it.
 */
@Injectable()
export class ExportService {
  constructor(private readonly rpc: RpcClient) {}

  async exportOf(user: AuthenticatedUser, now = new Date()): Promise<UserExport> {
    const [identity, items, messaging, notifications] = await Promise.all([
      this.ask('identity.rpc.export-user', { userId: user.id }),
      this.ask('items.rpc.export-owner', { ownerUserId: user.id }),
      this.ask('messaging.rpc.export-owner', { ownerUserId: user.id }),
      this.ask('notifications.rpc.export-user', { userId: user.id }),
    ]);
    return {
      exported_at: now.toISOString(),
      about: EXPORT_ABOUT,
      account: identity.account,
      sessions: identity.sessions,
      passkeys: identity.passkeys,
      mail_requests: identity.mailRequests,
      items: items.items,
      shared_items: items.sharedItems ?? [],
      conversations: messaging.conversations,
      push_subscriptions: notifications.pushSubscriptions,
      notifications_sent: notifications.deliveries,
      notification_settings: notifications.itemSettings,
    };
  }

  private async ask<S extends RpcSubject>(subject: S, request: RpcRequest<S>): Promise<RpcResponse<S>> {
    try {
      return await this.rpc.request(subject, request);
    } catch (error) {
      if (error instanceof RpcTimeoutError) throw new RpcUnavailableError(subject, error);
      throw error;
    }
  }
}
