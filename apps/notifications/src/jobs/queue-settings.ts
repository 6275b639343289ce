import type { JobsOptions, WorkerOptions } from 'bullmq';

const DAY_S = 24 * 60 * 60;

/**
 * RELIABILITY.md "Settings": 8 attempts with exponential back-off (2 s, 4 s … about 4 minutes in all); completed
 * jobs kept 7 days by age, never `removeOnComplete: true`, which frees a deterministic id and lets a replayed event
 * run again; failed jobs kept 30 days so they can be looked at (their secrets are scrubbed when they fail for good).
 */
export const NOTIFICATION_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: { age: 7 * DAY_S },
  removeOnFail: { age: 30 * DAY_S },
};

/**
 * How long an idle worker's blocking wait for a job lasts before it asks again. A job added, or a delayed one coming due,
 * wakes the wait at once (BullMQ's marker), so this sets only how often an idle worker polls: BullMQ's 5 s made the two
 * workers' polls about a tenth of notifications' idle CPU (B8, docs/benchmarks.md). 10 s is BullMQ's own ceiling for a
 * blocking wait on Redis (longer ones risk trouble on a reconnect).
 */
const IDLE_WAIT_SECONDS = 10;

/**
 * A killed worker's job is picked up after about two stall intervals (JOB_LOCK_SECONDS: 30 s with the default 15 s,
 * measured here; 60 s with BullMQ's own default); a job found stalled twice more fails rather than looping. Ten jobs
 * side by side per queue and process: a job's run is mostly waiting (RPCs, PostgreSQL, the SMTP server or push
 * service), and at 4 the queue was where a burst of messages waited (B3); sends still share the transport's 5 pooled
 * SMTP connections.
 */
export function notificationWorkerOptions(lockSeconds: number): Pick<WorkerOptions, 'lockDuration' | 'stalledInterval' | 'maxStalledCount' | 'concurrency' | 'drainDelay'> {
  return { lockDuration: lockSeconds * 1000, stalledInterval: lockSeconds * 1000, maxStalledCount: 2, concurrency: 10, drainDelay: IDLE_WAIT_SECONDS };
}
