import { Inject, Injectable, type Type } from '@nestjs/common';
import type { DomainEvent, EventSubject } from '@homing/contracts';
import { InjectConfig } from '@homing/platform';
import type { NotificationsConfig } from '../config/notifications.config';
import type { EmailJob } from '../jobs/email-jobs';
import { EmailQueueRepository } from '../jobs/email-queue.repository';
import { DURABLE_CONSUMERS, EMAIL_JOBS } from '../persisted-names';
import { NotificationConsumer } from './notification.consumer';
import { ACCOUNT_SECURITY_MAIL_STALE_AFTER_MS, ACTIVATION_MAIL_STALE_AFTER_MS, MESSAGE_NOTICE_STALE_AFTER_MS, SECRET_MAIL_STALE_AFTER_MS } from './stale-after';

interface MailRule<S extends EventSubject> {
  durableName: string;
  subject: S;
  staleAfterMs: number;
  /** The one e-mail an event asks for, to one recipient; null for none. */
  mailOf(event: DomainEvent<S>): EmailJob | null;
  /** How long the e-mail waits before a worker renders and sends it; at once when absent. */
  delayMs?(config: MailConsumerConfig): number;
}

type MailConsumerConfig = Pick<NotificationsConfig, 'WELCOME_MAIL_DELAY_MINUTES'>;

/** A consumer that turns each event of one subject into at most one e-mail job, named by the event. */
function mailConsumer<S extends EventSubject>(rule: MailRule<S>): Type<NotificationConsumer<S>> {
  @Injectable()
  class MailConsumer extends NotificationConsumer<S> {
    constructor(
      @Inject(EmailQueueRepository) private readonly emails: EmailQueueRepository,
      @InjectConfig() private readonly config: MailConsumerConfig,
    ) {
      super(rule.durableName, rule.subject, rule.staleAfterMs);
    }

    async handle(event: DomainEvent<S>): Promise<void> {
      const mail = rule.mailOf(event);
      if (mail) await this.emails.enqueue(mail, event.id, { delayMs: rule.delayMs?.(this.config) ?? 0 });
    }
  }
  return MailConsumer;
}

/** A login code was asked for: e-mail the code and its link to the user. */
export const LoginCodeMailConsumer = mailConsumer({
  durableName: DURABLE_CONSUMERS.loginCodeMail,
  subject: 'identity.login-code.requested.v1',
  staleAfterMs: SECRET_MAIL_STALE_AFTER_MS,
  mailOf: ({ data }) => ({ kind: EMAIL_JOBS.loginCode, data: { userId: data.userId, code: data.code } }),
});

/** A password reset was asked for: e-mail the single-use reset link. */
export const PasswordResetMailConsumer = mailConsumer({
  durableName: DURABLE_CONSUMERS.passwordResetMail,
  subject: 'identity.password-reset.requested.v1',
  staleAfterMs: SECRET_MAIL_STALE_AFTER_MS,
  mailOf: ({ data }) => ({ kind: EMAIL_JOBS.passwordReset, data: { userId: data.userId, token: data.token } }),
});

/**
 * A user was created at activation: welcome them. The mail waits WELCOME_MAIL_DELAY_MINUTES, because activation goes
 * on to offer choosing a password: the worker looks at send time, and only a user still without one gets the
 * set-password link (the others are invited to log in). A user made without a password token gets no mail.
 */
export const WelcomeMailConsumer = mailConsumer({
  durableName: DURABLE_CONSUMERS.welcomeMail,
  subject: 'identity.user.registered.v1',
  staleAfterMs: SECRET_MAIL_STALE_AFTER_MS,
  mailOf: ({ data }) => (data.passwordToken ? { kind: EMAIL_JOBS.welcome, data: { userId: data.userId, passwordToken: data.passwordToken } } : null),
  delayMs: (config) => Math.round(config.WELCOME_MAIL_DELAY_MINUTES * 60_000),
});

/** A tag was activated: tell its owner it is live, with a link to name the item. */
export const TagActivatedMailConsumer = mailConsumer({
  durableName: DURABLE_CONSUMERS.tagActivatedMail,
  subject: 'items.item.claimed.v1',
  staleAfterMs: ACTIVATION_MAIL_STALE_AFTER_MS,
  mailOf: ({ data }) => ({ kind: EMAIL_JOBS.tagActivated, data: { userId: data.ownerUserId, tagCode: data.code } }),
});

/**
 * A finder asked for a link to their conversation: e-mail it to the address they left. The link's token is minted
 * by messaging when the mail is made, never carried here. Stale like a secret's mail: the finder is waiting for it.
 */
export const ResumeLinkMailConsumer = mailConsumer({
  durableName: DURABLE_CONSUMERS.resumeLinkMail,
  subject: 'messaging.resume-link.requested.v1',
  staleAfterMs: SECRET_MAIL_STALE_AFTER_MS,
  mailOf: ({ data }) => ({ kind: EMAIL_JOBS.resumeLink, data: { conversationId: data.conversationId, tagCode: data.itemCode } }),
});

/**
 * A finder's e-mail to a tag's relay address opened a conversation: tell them it reached the owner, from the
 * conversation's reply address, so they can go on by e-mail (or on the page, by the mail's link). Their address is
 * asked of messaging when the mail is sent. Stale like a message's mail: a day late is still worth it.
 */
export const RelayAcknowledgementMailConsumer = mailConsumer({
  durableName: DURABLE_CONSUMERS.relayAcknowledgementMail,
  subject: 'messaging.conversation.opened-by-mail.v1',
  staleAfterMs: MESSAGE_NOTICE_STALE_AFTER_MS,
  mailOf: ({ data }) => ({ kind: EMAIL_JOBS.relayAcknowledgement, data: { conversationId: data.conversationId, tagCode: data.itemCode } }),
});

/**
 * A user erased their account: one last e-mail, to the address and in the language the event carries (identity has
 * erased the user, so there is nobody to look up). The job is named by the event and `farewell`, never the address;
 * the address leaves Redis once the job is done. Stale like a secret's mail: the secrets stream keeps it as long.
 */
export const FarewellMailConsumer = mailConsumer({
  durableName: DURABLE_CONSUMERS.farewellMail,
  subject: 'identity.user.farewell.v1',
  staleAfterMs: SECRET_MAIL_STALE_AFTER_MS,
  mailOf: ({ data }) => ({ kind: EMAIL_JOBS.accountDeleted, data: { email: data.email, language: data.language } }),
});

/**
 * Someone was invited to share an item or take it over: e-mail the link to the address the event carries (the invitee
 * may have no account), in the invitee's language if they have one, else the inviter's (asked when the job runs). The
 * job is named by the event and the invitation's id, never the address; address and token leave Redis once the job is
 * done. Stale like a secret's mail: the secrets stream keeps it as long.
 */
export const InvitationMailConsumer = mailConsumer({
  durableName: DURABLE_CONSUMERS.invitationMail,
  subject: 'items.invitation.created.v1',
  staleAfterMs: SECRET_MAIL_STALE_AFTER_MS,
  mailOf: ({ data }) => ({
    kind: EMAIL_JOBS.invitation,
    data: { invitationId: data.invitationId, email: data.email, token: data.token, invitationKind: data.kind, inviterUserId: data.inviterUserId },
  }),
});

/**
 * A passkey was added to an account: tell its owner at once, naming the provider and when, so one they did not add is
 * seen (and deleted) while it matters. Address and language are asked of identity when the mail is sent.
 */
export const PasskeyAddedMailConsumer = mailConsumer({
  durableName: DURABLE_CONSUMERS.passkeyAddedMail,
  subject: 'identity.passkey.added.v1',
  staleAfterMs: ACCOUNT_SECURITY_MAIL_STALE_AFTER_MS,
  mailOf: ({ data, occurredAt }) => ({
    kind: EMAIL_JOBS.passkeyAdded,
    data: { userId: data.userId, passkeyId: data.passkeyId, provider: data.provider, occurredAt },
  }),
});

/** A passkey was deleted from an account: tell its owner, as for one added (a deletion they did not make is a break-in). */
export const PasskeyDeletedMailConsumer = mailConsumer({
  durableName: DURABLE_CONSUMERS.passkeyDeletedMail,
  subject: 'identity.passkey.deleted.v1',
  staleAfterMs: ACCOUNT_SECURITY_MAIL_STALE_AFTER_MS,
  mailOf: ({ data, occurredAt }) => ({
    kind: EMAIL_JOBS.passkeyDeleted,
    data: { userId: data.userId, passkeyId: data.passkeyId, provider: data.provider, occurredAt },
  }),
});
