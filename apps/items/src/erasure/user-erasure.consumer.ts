import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import { ErasureSecondPass, EveryEventConsumer, IdempotencyKeys, InjectConfig, OutboxWriter, type Transaction } from '@homing/platform';
import type { ItemsConfig } from '../config/items.config';
import { ItemsRepository } from '../items/items.repository';
import { PeopleService } from '../people/people.service';
import { USER_ERASURE_CONSUMER, USER_ERASURE_SECOND_PASS } from '../persisted-names';
import { TagBatchesRepository } from '../tag-batches/tag-batches.repository';

/**
 * An erased user's part of items (ARCHITECTURE §12): every item they own is deleted with its photos and its tag
 * retired (it answers like an unknown code and can never be claimed again), each deletion recorded as
 * `items.item.deleted.v1` so messaging drops the conversations and the gateways their cached scans; they leave the
 * items they co-owned, the invitations they sent or accepted go, batches they minted as an admin forget them, and the
 * answers kept for their idempotency keys go. One transaction with the ledger: a redelivery finds nothing left to do.
 */
@Injectable()
export class UserErasureConsumer extends EveryEventConsumer<'identity.user.deleted.v1'> {
  constructor(
    private readonly items: ItemsRepository,
    private readonly batches: TagBatchesRepository,
    private readonly outbox: OutboxWriter,
    private readonly idempotencyKeys: IdempotencyKeys,
    private readonly people: PeopleService,
  ) {
    super(USER_ERASURE_CONSUMER, 'identity.user.deleted.v1');
  }

  async handle(event: DomainEvent<'identity.user.deleted.v1'>, transaction: Transaction): Promise<void> {
    const deleted = await this.items.deleteAllOwnedBy(transaction, event.data.userId);
    for (const { code, version } of deleted) {
      await this.outbox.record(transaction, 'items.item.deleted.v1', { code }, { aggregateId: code, version });
    }
    // Items they co-owned lose them (each with `items.item.people-changed.v1`).
    await this.people.forgetUser(transaction, event.data.userId);
    await this.batches.forgetCreator(transaction, event.data.userId);
    await this.idempotencyKeys.forgetCaller(transaction, event.data.userId);
  }
}

/**
 * The same erasure once more, `ERASURE_SECOND_PASS_SECONDS` after it: whatever a request let through just before the
 * erasure wrote after the first pass (ErasureSecondPass).
 */
@Injectable()
export class UserErasureSecondPass extends ErasureSecondPass {
  constructor(firstPass: UserErasureConsumer, @InjectConfig() config: ItemsConfig) {
    super(USER_ERASURE_SECOND_PASS, firstPass, config);
  }
}
