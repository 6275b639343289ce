import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import { EveryEventConsumer, type Transaction } from '@homing/platform';
import { DURABLE_CONSUMERS } from '../persisted-names';
import { PushSubscriptionsRepository } from '../push-subscriptions/push-subscriptions.repository';

/**
 * Identity revoked sessions of a user (log-out, a refresh token's reuse, a password's change or reset, a passkey's
 * deletion): the owner's push subscriptions those sessions registered go, with their delivery records, so a browser
 * logged out (a lost phone whose passkey was deleted) hears of the owner's items no more. A finder's subscription has
 * no session and is never touched; a session that merely expired publishes nothing and keeps its pushes. Must never
 * be skipped: from the stream's first event, no staleness, each event applied once with the ledger (a repeat deletes
 * nothing more).
 */
@Injectable()
export class SessionsRevokedConsumer extends EveryEventConsumer<'identity.sessions.revoked.v1'> {
  constructor(private readonly subscriptions: PushSubscriptionsRepository) {
    super(DURABLE_CONSUMERS.sessionsRevoked, 'identity.sessions.revoked.v1');
  }

  async handle(event: DomainEvent<'identity.sessions.revoked.v1'>, transaction: Transaction): Promise<void> {
    await this.subscriptions.deleteOfSessions(event.data.userId, event.data.sessionIds, transaction);
  }
}
