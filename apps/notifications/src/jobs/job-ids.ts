import type { QUEUES } from '../persisted-names';

/** The channels a job id starts with: the queue that carries the job. */
export type Channel = (typeof QUEUES)[keyof typeof QUEUES];

/**
 * `<channel>_<eventId>_<recipient>` (ARCHITECTURE §9): the same event for the same recipient is always the same
 * job, so a redelivered or republished event is refused by the queue. BullMQ reserves `:` in ids.
 */
export function notificationJobId(channel: Channel, eventId: string, recipientId: string): string {
  const id = `${channel}_${eventId}_${recipientId}`;
  if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`a job id must be letters, digits, _ and - only: ${channel} job of event ${eventId}`);
  return id;
}
