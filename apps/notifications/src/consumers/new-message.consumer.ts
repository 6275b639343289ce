import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import { InjectConfig } from '@homing/platform';
import type { NotificationsConfig } from '../config/notifications.config';
import { ItemRecipientsService, type ItemRecipientWithSubscriptions } from '../item-people/item-recipients.service';
import { EmailQueueRepository } from '../jobs/email-queue.repository';
import { PushQueueRepository } from '../jobs/push-queue.repository';
import { DURABLE_CONSUMERS, EMAIL_JOBS, PUSH_JOBS, RETIRED_DURABLE_CONSUMERS } from '../persisted-names';
import { PushSubscriptionsRepository } from '../push-subscriptions/push-subscriptions.repository';
import { MessageMailWindowsRepository } from './message-mail-windows.repository';
import { MessageNoticeConsumer } from './message-notice.consumer';

/**
 * How long a person's e-mail about a finder's message waits: one with a push subscription (and push on for the item)
 * was pushed at once, so the e-mail follows only after `OWNER_EMAIL_DELAY_MINUTES` (and only if the message is still
 * unread then, which the worker asks); one without is e-mailed at once.
 */
export function ownerEmailDelayMs(ownerHasPush: boolean, delayMinutes: number): number {
  return ownerHasPush ? Math.round(delayMinutes * 60_000) : 0;
}

type MessageCreated = DomainEvent<'messaging.message.created.v1'>;

/**
 * A message was written: the other side of its conversation is told, by push on every message and by e-mail at most
 * once a window. One consumer for both, so a finder's message reads the item's people (with their settings and push
 * subscriptions) once, and is delivered and acknowledged once; it took over the two consumers that did each apart
 * (`succeeds`: it started where they had got to, and they are deleted once no process of the old code pulls from them).
 *
 * - **Push**, not coalesced (a browser shows them as one notification per item, by tag): a finder's message to every
 *   subscription of the owner and each co-owner with push on for the item; a reply of the owner or a co-owner to the
 *   subscriptions of the finder of that conversation. One job per subscription, named by the event and the subscription.
 * - **E-mail**: a finder's message to the owner and every co-owner with e-mail on for the item, at most once per
 *   conversation per 15 minutes, delayed by `ownerEmailDelayMs`. The window is the conversation's (which event opens 15
 *   minutes is a fact of its messages' times, the same for everyone), and each person's job of a window is named by
 *   the event that opened it and their id (`email_<opener>_<userId>`), so the window's later messages coalesce into
 *   that person's one job: each gets their own coalesced mail, and one who turns e-mail on, or joins, mid-window gets
 *   the window's mail then. A reply (author `owner`) e-mails the finder, if they left an address (looked up when the
 *   job runs).
 *
 * Crash-safe and idempotent by the jobs' names: the window is recorded before the jobs are enqueued, and a redelivered
 * or replayed event finds the same window and enqueues the same job ids, which the queues refuse once they exist.
 */
@Injectable()
export class NewMessageConsumer extends MessageNoticeConsumer {
  readonly succeeds = [RETIRED_DURABLE_CONSUMERS.newMessageMail, RETIRED_DURABLE_CONSUMERS.newMessagePush];

  constructor(
    private readonly emails: EmailQueueRepository,
    private readonly pushes: PushQueueRepository,
    private readonly windows: MessageMailWindowsRepository,
    private readonly subscriptions: PushSubscriptionsRepository,
    private readonly recipients: ItemRecipientsService,
    @InjectConfig() private readonly config: Pick<NotificationsConfig, 'OWNER_EMAIL_DELAY_MINUTES'>,
  ) {
    super(DURABLE_CONSUMERS.newMessage);
  }

  async handle(event: MessageCreated): Promise<void> {
    if (event.data.author === 'owner') return this.replyToFinder(event);
    const { conversationId, itemCode: tagCode, ownerUserId, messageId } = event.data;
    // Side by side: the window is a write of this service's own, the item's people a read; neither needs the other,
    // and each is a round trip on the way from a finder's message to its e-mail (B3). A message in a window already
    // told of costs the read for nothing, which its pushes need anyway.
    const [window, people] = await Promise.all([
      this.windows.windowOf(conversationId, event.id, new Date(event.occurredAt), messageId),
      this.recipients.recipientsWithSubscriptionsOf(tagCode, ownerUserId),
    ]);
    const pushedTo = people.filter((person) => person.push).flatMap((person) => person.subscriptionIds);
    // Every job queued side by side: a round trip each, and none needs another.
    await Promise.all([
      ...this.pushesOf(event, pushedTo),
      ...(window
        ? people
            .filter((person) => person.email)
            .map((person) =>
              this.emails.enqueue(
                // The message that opened the window: the worker asks whether it, or a later one, is still unread.
                { kind: EMAIL_JOBS.newMessage, data: { userId: person.userId, tagCode, conversationId, messageId: window.messageId } },
                window.eventId,
                // Push off for the item: nothing was pushed to them, so the e-mail is all they get, at once.
                { delayMs: ownerEmailDelayMs(wasPushed(person), this.config.OWNER_EMAIL_DELAY_MINUTES) },
              ),
            )
        : []),
    ]);
  }

  /** A reply of the owner or a co-owner: pushed to the finder's subscriptions, and e-mailed to them. */
  private async replyToFinder(event: MessageCreated): Promise<void> {
    const { conversationId, itemCode: tagCode, messageId } = event.data;
    const mailed = this.emails.enqueue({ kind: EMAIL_JOBS.ownerReply, data: { conversationId, tagCode, messageId } }, event.id);
    const pushed = this.subscriptions.listFor({ conversationId }).then((subscriptions) => Promise.all(this.pushesOf(event, subscriptions.map(({ id }) => id))));
    // Both settle before either's failure is thrown: the redelivery then finds the other done (its job's name exists).
    const [mail, push] = await Promise.allSettled([mailed, pushed]);
    for (const outcome of [mail, push]) if (outcome.status === 'rejected') throw outcome.reason;
  }

  private pushesOf(event: MessageCreated, subscriptionIds: string[]): Array<Promise<unknown>> {
    const { author, itemCode: tagCode, conversationId, messageId } = event.data;
    return subscriptionIds.map((subscriptionId) => this.pushes.enqueue({ kind: PUSH_JOBS.newMessage, data: { subscriptionId, tagCode, author, conversationId, messageId } }, event.id));
  }
}

/** Whether a person of the item was pushed a finder's message: push on for the item, and a subscription to push to. */
function wasPushed(person: ItemRecipientWithSubscriptions): boolean {
  return person.push && person.subscriptionIds.length > 0;
}
