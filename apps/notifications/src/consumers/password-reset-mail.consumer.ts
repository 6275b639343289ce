import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import type { HandlerConsumer } from '@homing/platform';
import { EmailQueue } from '../jobs/email.queue';
import { DURABLE_CONSUMERS, EMAIL_JOBS } from '../jobs/persisted-names';
import { SECRET_MAIL_STALE_AFTER_MS } from './stale-after';

/** A password reset was asked for: e-mail the single-use reset link. */
@Injectable()
export class PasswordResetMailConsumer implements HandlerConsumer<'identity.password-reset.requested.v1'> {
  readonly durableName = DURABLE_CONSUMERS.passwordResetMail;
  readonly subjects = ['identity.password-reset.requested.v1'] as const;
  readonly startFrom = 'new';
  readonly staleAfterMs = SECRET_MAIL_STALE_AFTER_MS;
  readonly idempotency = 'handler';

  constructor(private readonly emails: EmailQueue) {}

  async handle(event: DomainEvent<'identity.password-reset.requested.v1'>): Promise<void> {
    await this.emails.enqueue(EMAIL_JOBS.passwordReset, event.id, { userId: event.data.userId, token: event.data.token });
  }
}
