import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import type { HandlerConsumer } from '@homing/platform';
import { EmailQueue } from '../jobs/email.queue';
import { DURABLE_CONSUMERS, EMAIL_JOBS } from '../jobs/persisted-names';
import { SECRET_MAIL_STALE_AFTER_MS } from './stale-after';

/** A login code was asked for: e-mail the code and its link to the user. */
@Injectable()
export class LoginCodeMailConsumer implements HandlerConsumer<'identity.login-code.requested.v1'> {
  readonly durableName = DURABLE_CONSUMERS.loginCodeMail;
  readonly subjects = ['identity.login-code.requested.v1'] as const;
  readonly startFrom = 'new';
  readonly staleAfterMs = SECRET_MAIL_STALE_AFTER_MS;
  readonly idempotency = 'handler';

  constructor(private readonly emails: EmailQueue) {}

  async handle(event: DomainEvent<'identity.login-code.requested.v1'>): Promise<void> {
    await this.emails.enqueue(EMAIL_JOBS.loginCode, event.id, { userId: event.data.userId, code: event.data.code });
  }
}
