import { EMAIL_JOBS } from './persisted-names';

export type EmailKind = (typeof EMAIL_JOBS)[keyof typeof EMAIL_JOBS];

/**
 * What each e-mail job carries: the recipient (a user's id, or for a finder without an account their conversation's
 * id; address and language are looked up when the job runs) and what identity cannot give again, the code or token it
 * keeps only as a hash. Nothing else.
 */
export interface EmailJobMap {
  'login-code': { userId: string; code: string };
  'password-reset': { userId: string; token: string };
  welcome: { userId: string; passwordToken: string };
  'tag-activated': { userId: string; tagCode: string };
  'new-message': { userId: string; tagCode: string };
  'owner-reply': { conversationId: string; tagCode: string };
}

export type EmailJobData<K extends EmailKind = EmailKind> = EmailJobMap[K];

/** Who a job writes to, as it stays in the kept job once its other data is scrubbed. */
export type EmailRecipient = { userId: string } | { conversationId: string };

/** The recipient's id: the last part of the job id, and all a finished job keeps. */
export function recipientOf(data: EmailJobData): EmailRecipient {
  return 'userId' in data ? { userId: data.userId } : { conversationId: data.conversationId };
}

export function recipientIdOf(data: EmailJobData): string {
  return 'userId' in data ? data.userId : data.conversationId;
}

/** The channels a job id starts with. */
export type Channel = 'email' | 'push';

/**
 * `<channel>_<eventId>_<recipient>` (ARCHITECTURE §9): the same event for the same recipient is always the same
 * job, so a redelivered or republished event is refused by the queue. BullMQ reserves `:` in ids.
 */
export function notificationJobId(channel: Channel, eventId: string, recipientId: string): string {
  const id = `${channel}_${eventId}_${recipientId}`;
  if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`a job id must be letters, digits, _ and - only: ${channel} job of event ${eventId}`);
  return id;
}
