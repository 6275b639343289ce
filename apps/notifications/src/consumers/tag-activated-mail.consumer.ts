import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import type { HandlerConsumer } from '@homing/platform';
import { EmailQueue } from '../jobs/email.queue';
import { DURABLE_CONSUMERS, EMAIL_JOBS } from '../jobs/persisted-names';
import { ACTIVATION_MAIL_STALE_AFTER_MS } from './stale-after';

/** A tag was activated: tell its owner it is live, with a link to name the item. */
@Injectable()
export class TagActivatedMailConsumer implements HandlerConsumer<'items.item.claimed.v1'> {
  readonly durableName = DURABLE_CONSUMERS.tagActivatedMail;
  readonly subjects = ['items.item.claimed.v1'] as const;
  readonly startFrom = 'new';
  readonly staleAfterMs = ACTIVATION_MAIL_STALE_AFTER_MS;
  readonly idempotency = 'handler';

  constructor(private readonly emails: EmailQueue) {}

  async handle(event: DomainEvent<'items.item.claimed.v1'>): Promise<void> {
    await this.emails.enqueue(EMAIL_JOBS.tagActivated, event.id, { userId: event.data.ownerUserId, tagCode: event.data.code });
  }
}
