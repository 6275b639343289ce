/**
 * WARNING: every name here is persisted; renaming one loses data. Queue and job names are keys of jobs waiting in
 * Redis (a renamed queue strands its jobs; a renamed job kind is never sent); durable names are consumers'
 * positions in NATS streams (a renamed one is a new consumer that starts at new events and silently skips what the
 * old one had not handled yet). The BullMQ key prefix is configuration (`BULLMQ_PREFIX`), its default here.
 */
export const QUEUES = {
  email: 'email',
  push: 'push',
} as const;

/** Job names of the `email` queue: one per kind of e-mail. */
export const EMAIL_JOBS = {
  loginCode: 'login-code',
  passwordReset: 'password-reset',
  welcome: 'welcome',
  tagActivated: 'tag-activated',
  /** To an item's owner: a finder wrote (at most one per conversation per 15 minutes). */
  newMessage: 'new-message',
  /** To a finder who left an address: the owner replied. */
  ownerReply: 'owner-reply',
  /** To a finder who asked for one: a link to their conversation, for any browser. */
  resumeLink: 'resume-link',
  /** To a finder whose e-mail to a tag's relay address opened a conversation: it reached the owner, reply to go on. */
  relayAcknowledgement: 'relay-acknowledgement',
  /** To an item's owner, while the item is lost: its tag was scanned (at most one per item per 15 minutes). */
  scanAlert: 'scan-alert',
  /** To a user who erased their account: the last e-mail, to the address the event carries (identity has none left). */
  accountDeleted: 'account-deleted',
  /** To an address invited to share an item or take it over: the invitation's link, to the address the event carries. */
  invitation: 'invitation',
  /** To a user: a passkey was added to their account (which, and when), and what to do if it was not them. */
  passkeyAdded: 'passkey-added',
  /** To a user: a passkey was deleted from their account (which, and when), and what to do if it was not them. */
  passkeyDeleted: 'passkey-deleted',
} as const;

/** Job names of the `push` queue. */
export const PUSH_JOBS = {
  newMessage: 'new-message',
  /** To each subscription of an item's owner, while the item is lost: its tag was scanned (every scan). */
  scanAlert: 'scan-alert',
} as const;

/** Durable JetStream consumers of this service (`<service>__<purpose>`). */
export const DURABLE_CONSUMERS = {
  loginCodeMail: 'notifications__login-code-mail',
  passwordResetMail: 'notifications__password-reset-mail',
  welcomeMail: 'notifications__welcome-mail',
  tagActivatedMail: 'notifications__tag-activated-mail',
  /** A message was written: its pushes and e-mails (took over the two below that did each apart). */
  newMessage: 'notifications__new-message',
  resumeLinkMail: 'notifications__resume-link-mail',
  /** Acknowledges a finder's e-mail to a tag's relay address (`messaging.conversation.opened-by-mail.v1`). */
  relayAcknowledgementMail: 'notifications__relay-acknowledgement-mail',
  /**
   * A lost item's tag was scanned (`items.item.scanned.v1`): a push to each subscription of its people, and their
   * e-mails, coalesced per item (took over the two below that did each apart).
   */
  scanAlert: 'notifications__scan-alert',
  /** Deletes a conversation's push subscriptions when its finder left (from the stream's first event). */
  finderLeft: 'notifications__finder-left',
  /** Deletes the finders' push subscriptions of conversations erased whole (reset, item deletion, erased account). */
  conversationsErased: 'notifications__conversations-erased',
  /** The last e-mail to a user who erased their account. */
  farewellMail: 'notifications__farewell-mail',
  /** Erases a deleted user's push subscriptions and delivery records (from the stream's first event). */
  userDeleted: 'notifications__user-deleted',
  /** Erases them a second time, minutes later (ErasureSecondPass). */
  userDeletedSecondPass: 'notifications__user-deleted-second-pass',
  /**
   * Keeps the people of each item (`item_people`) from items' people-changed events, and erases an item's notification
   * settings when it is deleted or transferred (from the stream's first event).
   */
  itemPeople: 'notifications__item-people',
  /** An invitation to share an item or take it over (`items.invitation.created.v1`, secrets stream). */
  invitationMail: 'notifications__invitation-mail',
  /** A passkey was added to an account (`identity.passkey.added.v1`): the owner's e-mail. */
  passkeyAddedMail: 'notifications__passkey-added-mail',
  /** A passkey was deleted from an account (`identity.passkey.deleted.v1`): the owner's e-mail. */
  passkeyDeletedMail: 'notifications__passkey-deleted-mail',
  /**
   * Deletes an owner's push subscriptions registered from sessions identity revoked (`identity.sessions.revoked.v1`;
   * from the stream's first event).
   */
  sessionsRevoked: 'notifications__sessions-revoked',
} as const;

/** Prefix of BullMQ's Redis keys when `BULLMQ_PREFIX` is not set: `homing`, or `homing_<NATS_NAMESPACE>`. */
export const DEFAULT_BULLMQ_PREFIX = 'homing';

/**
 * Durable consumers a consumer took over (`succeeds`): deleted by it once no process pulls from them, and never a new
 * consumer's name (one would start where they had got to, or be deleted).
 */
export const RETIRED_DURABLE_CONSUMERS = {
  /** Taken over by `notifications__new-message` (2026-12-06). */
  newMessageMail: 'notifications__new-message-mail',
  /** Taken over by `notifications__new-message` (2026-12-06). */
  newMessagePush: 'notifications__new-message-push',
  /** Taken over by `notifications__scan-alert` (2026-12-06). */
  scanAlertMail: 'notifications__scan-alert-mail',
  /** Taken over by `notifications__scan-alert` (2026-12-06). */
  scanAlertPush: 'notifications__scan-alert-push',
} as const;
