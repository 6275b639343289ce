import type { DomainEvent, EventSubject } from '@homing/contracts';
import type { HandlerConsumer } from '@homing/platform';

/**
 * What every consumer of this service shares: one durable consumer of one subject, from new events on (a consumer
 * created later does not mail the past), stale after a while, idempotent by its jobs' deterministic ids.
 */
export abstract class NotificationConsumer<S extends EventSubject> implements HandlerConsumer<S> {
  readonly subjects: readonly [S];
  readonly startFrom = 'new';
  readonly idempotency = 'handler';

  protected constructor(
    readonly durableName: string,
    subject: S,
    readonly staleAfterMs: number,
  ) {
    this.subjects = [subject];
  }

  abstract handle(event: DomainEvent<S>): Promise<void>;
}
