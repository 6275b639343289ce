import { z } from 'zod';

/**
 * Every event on JetStream travels in this envelope (ARCHITECTURE §3). Events carry ids, not personal data.
 */
export interface EventEnvelope<Subject extends string = string, Data = unknown> {
  /** UUID v7; also the JetStream message id, so a republished event is de-duplicated. */
  id: string;
  subject: Subject;
  /** ISO 8601 time the state change committed. */
  occurredAt: string;
  /** The id of the request that caused it, carried through every hop for logs. */
  correlationId: string;
  /** The id of the event or request that directly caused this one. */
  causationId: string | null;
  /** The service that produced it, e.g. `items`. */
  producer: string;
  /** The entity the event is about, e.g. the item's code: the unit of ordering. */
  aggregateId: string;
  /**
   * Rises with every change of the aggregate (not always by one: messaging's is the message id), in the transaction
   * that changes it. Events of one aggregate may arrive out of order (replicas, redeliveries): a projection applies
   * one only if it is newer than what it holds.
   */
  version: number;
  data: Data;
}

export const eventEnvelopeSchema = z.object({
  id: z.uuid(),
  subject: z.string().min(1),
  occurredAt: z.iso.datetime({ offset: true }),
  correlationId: z.string().min(1).max(128),
  causationId: z.string().max(128).nullable(),
  producer: z.string().min(1),
  aggregateId: z.string().min(1).max(128),
  version: z.number().int().min(1),
  data: z.unknown(),
});
