import { Injectable } from '@nestjs/common';
import type { DomainEvent } from '@homing/contracts';
import { ErasureSecondPass, EveryEventConsumer, IdempotencyKeys, InjectConfig, type Transaction } from '@homing/platform';
import type { MessagingConfig } from '../config/messaging.config';
import { ErasedConversations } from '../conversations/erased-conversations';
import { ItemOwnersRepository } from '../item-owners/item-owners.repository';
import { ReplyAddressesRepository } from '../relay/reply-addresses.repository';
import { USER_ERASURE_CONSUMER, USER_ERASURE_SECOND_PASS } from '../persisted-names';

/**
 * An erased user's part of messaging (ARCHITECTURE §12): their items become tombstones in `item_owners` (no owner,
 * no name), they leave the co-owners of others' items (and their reply addresses on those items' conversations go),
 * every conversation of their own items goes with its messages, finders' addresses and tokens, and the answers kept
 * for their idempotency keys are forgotten. Items' deletion events for the same items follow and change nothing more;
 * this consumer does not wait for them, so a user's conversations go even while items is behind.
 */
@Injectable()
export class UserErasureConsumer extends EveryEventConsumer<'identity.user.deleted.v1'> {
  constructor(
    private readonly itemOwners: ItemOwnersRepository,
    private readonly erasedConversations: ErasedConversations,
    private readonly idempotencyKeys: IdempotencyKeys,
    private readonly replyAddresses: ReplyAddressesRepository,
  ) {
    super(USER_ERASURE_CONSUMER, 'identity.user.deleted.v1');
  }

  async handle(event: DomainEvent<'identity.user.deleted.v1'>, transaction: Transaction): Promise<void> {
    for (const code of await this.itemOwners.forgetOwner(transaction, event.data.userId)) {
      await this.erasedConversations.eraseOfItem(transaction, code);
    }
    // Items they shared stay their owners', with their conversations; only the erased id goes from the co-owners.
    await this.itemOwners.forgetCoOwner(transaction, event.data.userId);
    await this.replyAddresses.forgetUser(transaction, event.data.userId);
    await this.idempotencyKeys.forgetCaller(transaction, event.data.userId);
  }
}

/**
 * The same erasure once more, `ERASURE_SECOND_PASS_SECONDS` after it: whatever a request let through just before the
 * erasure wrote after the first pass (ErasureSecondPass).
 */
@Injectable()
export class UserErasureSecondPass extends ErasureSecondPass {
  constructor(firstPass: UserErasureConsumer, @InjectConfig() config: MessagingConfig) {
    super(USER_ERASURE_SECOND_PASS, firstPass, config);
  }
}
