import { UnrecoverableError } from 'bullmq';
import { z } from 'zod';
import { messageAuthorSchema } from '@homing/contracts';
import { PUSH_JOBS } from '../persisted-names';

/**
 * Every push job: its kind (the BullMQ job name) and what it carries, the subscription it goes to (its endpoint and
 * keys are read when the job runs, so a subscription deleted meanwhile is not pushed to) and what the payload says.
 * No names, addresses or text.
 */
const pushJobSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal(PUSH_JOBS.newMessage), data: z.object({
      subscriptionId: z.string().min(1),
      tagCode: z.string(),
      author: messageAuthorSchema,
      // What was delivered, for the receipt; absent from jobs queued before they were added.
      conversationId: z.string().min(1).optional(),
      messageId: z.number().int().optional(),
    }),
  }),
  // Ids only (no place in a job): the worker asks items for the scan's time and place when it sends.
  z.object({ kind: z.literal(PUSH_JOBS.scanAlert), data: z.object({ subscriptionId: z.string().min(1), tagCode: z.string(), scanId: z.string().min(1) }) }),
]);

/** One push job, discriminated by `kind`: what consumers enqueue and what the processor switches on. */
export type PushJob = z.infer<typeof pushJobSchema>;
export type PushKind = PushJob['kind'];
export type PushJobData<K extends PushKind = PushKind> = Extract<PushJob, { kind: K }>['data'];

/** A job as the queue hands it over, checked against its kind: one that does not match can never be sent. */
export function pushJobOf(job: { name: string; data: unknown }): PushJob {
  const parsed = pushJobSchema.safeParse({ kind: job.name, data: job.data });
  if (!parsed.success) throw new UnrecoverableError(`not a push job of a known kind with its data: ${job.name}`);
  return parsed.data;
}
