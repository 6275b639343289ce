import { EMAIL_JOBS } from './persisted-names';

export type EmailKind = (typeof EMAIL_JOBS)[keyof typeof EMAIL_JOBS];

/**
 * What each e-mail job carries: the recipient's id (the address and language are looked up when the job runs) and
 * what identity cannot give again, the code or token it keeps only as a hash. Nothing else.
 */
export interface EmailJobMap {
  'login-code': { userId: string; code: string };
  'password-reset': { userId: string; token: string };
  welcome: { userId: string; passwordToken: string };
  'tag-activated': { userId: string; tagCode: string };
}

export type EmailJobData<K extends EmailKind = EmailKind> = EmailJobMap[K];

/** The channels a job id starts with. */
export type Channel = 'email' | 'push';

/**
 * `<channel>_<eventId>_<recipientUserId>` (ARCHITECTURE §9): the same event for the same recipient is always the same
 * job, so a redelivered or republished event is refused by the queue. BullMQ reserves `:` in ids.
 */
export function notificationJobId(channel: Channel, eventId: string, recipientUserId: string): string {
  const id = `${channel}_${eventId}_${recipientUserId}`;
  if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`a job id must be letters, digits, _ and - only: ${channel} job of event ${eventId}`);
  return id;
}
