import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import type { HandlerConsumer } from '@homing/platform';
import { EmailQueue } from '../jobs/email.queue';
import { DURABLE_CONSUMERS, EMAIL_JOBS } from '../jobs/persisted-names';
import { SECRET_MAIL_STALE_AFTER_MS } from './stale-after';

/** A user was created at activation: welcome them with the link to set a password. A user without one gets no mail. */
@Injectable()
export class WelcomeMailConsumer implements HandlerConsumer<'identity.user.registered.v1'> {
  readonly durableName = DURABLE_CONSUMERS.welcomeMail;
  readonly subjects = ['identity.user.registered.v1'] as const;
  readonly startFrom = 'new';
  readonly staleAfterMs = SECRET_MAIL_STALE_AFTER_MS;
  readonly idempotency = 'handler';

  constructor(private readonly emails: EmailQueue) {}

  async handle(event: DomainEvent<'identity.user.registered.v1'>): Promise<void> {
    if (!event.data.passwordToken) return;
    await this.emails.enqueue(EMAIL_JOBS.welcome, event.id, { userId: event.data.userId, passwordToken: event.data.passwordToken });
  }
}
