import { Inject, Injectable } from '@nestjs/common';
import { formatTagCode, parseTagCode, ResponseCode, type PublicItem } from '@homing/contracts';
import { IdempotencyKeys, OutboxWriter, RpcError } from '@homing/platform';
import { ITEMS_CONFIG, type ItemsConfig } from '../config/items.config';
import { mintTagCode } from '../tags/mint-tag-code';
import { ItemsRepository, type ItemRow } from './items.repository';

// 80-bit codes practically never collide; a few retries make "practically" certain.
const MINT_ATTEMPTS = 5;

@Injectable()
export class ItemsService {
  constructor(
    private readonly items: ItemsRepository,
    private readonly outbox: OutboxWriter,
    private readonly idempotencyKeys: IdempotencyKeys,
    @Inject(ITEMS_CONFIG) private readonly config: ItemsConfig,
  ) {}

  /** What a person who scanned (or typed) the code may see. Unknown and malformed codes are the same 404. */
  async getByCode(input: string, viewerUserId: string | null): Promise<PublicItem> {
    const code = parseTagCode(input);
    const row = code ? await this.items.findByCode(code) : null;
    if (!row) throw RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
    return this.toPublic(row, viewerUserId);
  }

  /**
   * Creates an already-claimed item for its owner and records `items.item.created.v1` in the same transaction.
   * With an idempotency key, a retry (within 24 h) gets the item the first request created, not a second one.
   */
  async create(name: string, ownerUserId: string, idempotencyKey?: string): Promise<PublicItem> {
    const idempotent = idempotencyKey ? { operation: 'items.create', caller: ownerUserId, key: idempotencyKey, request: { name } } : null;
    return this.idempotencyKeys.run(idempotent, async (manager) => {
      for (let attempt = 1; attempt <= MINT_ATTEMPTS; attempt += 1) {
        // A taken code leaves the transaction usable (ON CONFLICT DO NOTHING): mint another in it.
        const row = await this.items.insertClaimed(manager, { code: mintTagCode(), name, ownerUserId });
        if (!row) continue;
        await this.outbox.record(
          manager,
          'items.item.created.v1',
          { code: row.code, ownerUserId, claimedAt: (row.claimed_at as Date).toISOString() },
          { aggregateId: row.code, version: row.version },
        );
        return this.toPublic(row, ownerUserId);
      }
      throw new Error(`no free tag code after ${MINT_ATTEMPTS} attempts`);
    });
  }

  private toPublic(row: ItemRow, viewerUserId: string | null): PublicItem {
    const isOwner = viewerUserId !== null && row.owner_user_id === viewerUserId;
    return {
      code: formatTagCode(row.code),
      name: row.name,
      ...(this.config.REWARDS_ENABLED && row.reward_cents !== null ? { reward: row.reward_cents } : {}),
      claimed_at: row.claimed_at ? row.claimed_at.toISOString() : null,
      activated: row.claimed_at !== null,
      is_owner: isOwner,
      ...(isOwner ? { user_id: row.owner_user_id as string } : {}),
    };
  }
}
