import { z } from 'zod';
import type { DomainEvent } from '@homing/contracts';
import type { Transaction } from '../database/database';
import { EveryEventConsumer, type LedgerConsumer } from './event-consumer';

export const erasureEnvSchema = z.object({
  /**
   * How long after an account's erasure each service erases it a second time: longer than any request authorised
   * before the erasure can take to commit (an RPC's deadline is 2 s, each statement's timeout 5 s). See ErasureSecondPass.
   */
  ERASURE_SECOND_PASS_SECONDS: z.coerce.number().min(1).max(24 * 60 * 60).default(300),
});
export type ErasureConfig = z.infer<typeof erasureEnvSchema>;

type UserDeleted = 'identity.user.deleted.v1';

/**
 * An erasure's second pass (ARCHITECTURE §12, docs/decisions.md): the service's erasure consumer run again on each
 * `identity.user.deleted.v1` once the event is `ERASURE_SECOND_PASS_SECONDS` old, under a durable name and ledger
 * entry of its own.
 *
 * Why: identity revokes every session of the account before the erasure commits, and the gateway checks the session on
 * every request, but a request it let through just before (an owner claiming a tag in another tab) can reach its
 * service and commit after that service's first pass has run, leaving a row with the erased id that nothing would
 * delete. Such a write commits within seconds of the revocation (the RPC's deadline, the statement timeout), so a second
 * pass minutes later finds it. Every erasure consumer is idempotent, so the second pass deletes only what came late, and
 * every service is covered without a check on each of its writes. Nothing is stored for it: the event is in the stream.
 */
export abstract class ErasureSecondPass extends EveryEventConsumer<UserDeleted> {
  protected constructor(
    durableName: string,
    private readonly firstPass: LedgerConsumer<UserDeleted>,
    config: ErasureConfig,
  ) {
    super(durableName, 'identity.user.deleted.v1', config.ERASURE_SECOND_PASS_SECONDS * 1000);
  }

  handle(event: DomainEvent<UserDeleted>, transaction: Transaction): Promise<void> {
    return this.firstPass.handle(event, transaction);
  }
}
