import { UnrecoverableError } from 'bullmq';
import { z } from 'zod';
import { invitationKindSchema, userLanguageSchema } from '@homing/contracts';
import { EMAIL_JOBS } from '../persisted-names';

const userId = z.string().min(1);
// A passkey's id, its provider's public name (from the authenticator's model; null when unknown) and when the change
// happened (the event's time, which the mail names): no secret.
const passkeyChange = z.object({ userId, passkeyId: z.string().min(1), provider: z.string().nullable(), occurredAt: z.iso.datetime({ offset: true }) });

/**
 * Every e-mail job: its kind (the BullMQ job name) and what it carries, the recipient (a user's id, or for a finder
 * without an account their conversation's id; address and language are looked up when the job runs) and what
 * identity cannot give again, the code or token it keeps only as a hash. Nothing else. The exceptions are the
 * farewell to a user who erased their account (identity has no address left to look up) and an invitation (the
 * invitee may have no account): those jobs carry the address. A passkey's e-mail carries what its event told (the
 * passkey's id, its provider's public name, when), which no service is asked for again.
 */
const emailJobSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal(EMAIL_JOBS.loginCode), data: z.object({ userId, code: z.string() }) }),
  z.object({ kind: z.literal(EMAIL_JOBS.passwordReset), data: z.object({ userId, token: z.string() }) }),
  z.object({ kind: z.literal(EMAIL_JOBS.welcome), data: z.object({ userId, passwordToken: z.string() }) }),
  z.object({ kind: z.literal(EMAIL_JOBS.tagActivated), data: z.object({ userId, tagCode: z.string() }) }),
  z.object({
    kind: z.literal(EMAIL_JOBS.newMessage),
    // The conversation and the message that opened the mail's window: the worker asks messaging whether it is still
    // unread. Absent from jobs queued before they were added (sent as before).
    data: z.object({ userId, tagCode: z.string(), conversationId: z.string().min(1).optional(), messageId: z.number().int().optional() }),
  }),
  z.object({ kind: z.literal(EMAIL_JOBS.ownerReply), data: z.object({ conversationId: z.string().min(1), tagCode: z.string(), messageId: z.number().int().optional() }) }),
  z.object({ kind: z.literal(EMAIL_JOBS.resumeLink), data: z.object({ conversationId: z.string().min(1), tagCode: z.string() }) }),
  z.object({ kind: z.literal(EMAIL_JOBS.relayAcknowledgement), data: z.object({ conversationId: z.string().min(1), tagCode: z.string() }) }),
  // The scan that opened the item's mail window: where and when it was is asked of items when the mail is made.
  z.object({ kind: z.literal(EMAIL_JOBS.scanAlert), data: z.object({ userId, tagCode: z.string(), scanId: z.string().min(1) }) }),
  z.object({ kind: z.literal(EMAIL_JOBS.accountDeleted), data: z.object({ email: z.string().min(1), language: userLanguageSchema }) }),
  // The invitee may have no account to look up: the job carries the address and the link's token (items keeps a hash).
  z.object({
    kind: z.literal(EMAIL_JOBS.invitation),
    data: z.object({
      invitationId: z.string().min(1),
      email: z.string().min(1),
      token: z.string().min(1),
      invitationKind: invitationKindSchema,
      inviterUserId: userId,
    }),
  }),
  z.object({ kind: z.literal(EMAIL_JOBS.passkeyAdded), data: passkeyChange }),
  z.object({ kind: z.literal(EMAIL_JOBS.passkeyDeleted), data: passkeyChange }),
]);

/** One e-mail job, discriminated by `kind`: what consumers enqueue and what the processor switches on. */
export type EmailJob = z.infer<typeof emailJobSchema>;
export type EmailKind = EmailJob['kind'];
export type EmailJobData<K extends EmailKind = EmailKind> = Extract<EmailJob, { kind: K }>['data'];

/**
 * Who a job writes to, as it stays in the kept job once its other data is scrubbed. A farewell names no one: its
 * address is all it knew of the user, and goes once the job is done. An invitation is named by its id alone (items
 * knows whom it invited), its address and token gone.
 */
export type EmailRecipient = { userId: string } | { conversationId: string } | { invitationId: string } | { farewell: true };

/** What the queue holds for an e-mail job: its data while it waits, its recipient alone once done. */
export type StoredEmailJobData = EmailJobData | EmailRecipient;

/** The recipient part of a farewell's job id: neither the address nor the (erased) user's id. */
export const FAREWELL_RECIPIENT_ID = 'farewell';

/** The one key of what a finished job keeps, by kind of recipient (`recipientOf`). */
const RECIPIENT_KEYS = ['userId', 'conversationId', 'invitationId', 'farewell'] as const satisfies ReadonlyArray<KeysOfEach<EmailRecipient>>;
type KeysOfEach<Union> = Union extends unknown ? keyof Union : never;

/** The recipient of a job's data (or of what a done job kept): all a finished job keeps. */
export function recipientOf(data: StoredEmailJobData): EmailRecipient {
  if ('userId' in data) return { userId: data.userId };
  if ('conversationId' in data) return { conversationId: data.conversationId };
  if ('invitationId' in data) return { invitationId: data.invitationId };
  return { farewell: true };
}

/**
 * Whether a job's data is what a finished run left of it (its recipient alone): a later run of the same job (one that
 * started while the finishing run had lost its lock) has nothing left to send.
 */
export function isFinishedJobData(data: unknown): boolean {
  if (typeof data !== 'object' || data === null) return false;
  const keys = Object.keys(data);
  return keys.length === 1 && (RECIPIENT_KEYS as readonly string[]).includes(keys[0]);
}

/** The last part of the job id. */
export function recipientIdOf(data: StoredEmailJobData): string {
  const recipient = recipientOf(data);
  if ('userId' in recipient) return recipient.userId;
  if ('conversationId' in recipient) return recipient.conversationId;
  if ('invitationId' in recipient) return recipient.invitationId;
  return FAREWELL_RECIPIENT_ID;
}

/** A job as the queue hands it over, checked against its kind: one that does not match can never be sent. */
export function emailJobOf(job: { name: string; data: unknown }): EmailJob {
  const parsed = emailJobSchema.safeParse({ kind: job.name, data: job.data });
  if (!parsed.success) throw new UnrecoverableError(`not an e-mail job of a known kind with its data: ${job.name}`);
  return parsed.data;
}
