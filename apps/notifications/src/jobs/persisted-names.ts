/**
 * WARNING: every name here is persisted. Queue and job names are keys of jobs waiting in Redis; durable names are
 * consumers' positions in NATS streams. Renaming one strands queued jobs, or makes a new consumer that starts at
 * new events and silently skips what the old one had not handled yet.
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
} as const;

/** Job names of the `push` queue. */
export const PUSH_JOBS = {
  newMessage: 'new-message',
} as const;

/** Durable JetStream consumers of this service (`<service>__<purpose>`). */
export const DURABLE_CONSUMERS = {
  loginCodeMail: 'notifications__login-code-mail',
  passwordResetMail: 'notifications__password-reset-mail',
  welcomeMail: 'notifications__welcome-mail',
  tagActivatedMail: 'notifications__tag-activated-mail',
  newMessageMail: 'notifications__new-message-mail',
  newMessagePush: 'notifications__new-message-push',
} as const;
