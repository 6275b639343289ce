import { Injectable } from '@nestjs/common';
import { formatTagCode, photoUrls, parseTagCode, ResponseCode, type ItemRole, type PublicItem, type RpcResponse } from '@homing/contracts';
import { IdempotencyKeys, OutboxWriter, RpcError, InjectConfig } from '@homing/platform';
import type { ItemsConfig } from '../config/items.config';
import { mintTagCode } from '../tags/mint-tag-code';
import { ItemsRepository, type ItemRow, type PublicItemRow } from './items.repository';

/** A tag's public fields and who owns it, as the gateway's scan cache keeps them. */
type PublicItemRecord = RpcResponse<'items.rpc.get-public'>;

// 80-bit codes practically never collide; a few retries make "practically" certain.
const MINT_ATTEMPTS = 5;

@Injectable()
export class ItemsService {
  constructor(
    private readonly items: ItemsRepository,
    private readonly outbox: OutboxWriter,
    private readonly idempotencyKeys: IdempotencyKeys,
    @InjectConfig() private readonly config: ItemsConfig,
  ) {}

  /**
   * The item as anyone but its owner sees it, with its owner's id: the gateway keeps this for tag scans (kept current
   * by this service's events) and tells the owner apart itself. Unknown and malformed codes are the same 404.
   */
  async getPublic(input: string): Promise<PublicItemRecord> {
    const code = parseTagCode(input);
    const row = code ? await this.items.findByCode(code) : null;
    if (!row) throw itemNotFound();
    return this.publicRecordOf(row);
  }

  /**
   * `getPublic` of several codes in one statement, in the order asked, null where it would be 404: the gateway asks
   * once for the scans that reach it together.
   */
  async getPublicMany(inputs: readonly string[]): Promise<(PublicItemRecord | null)[]> {
    const codes = inputs.map((input) => parseTagCode(input));
    const wanted = [...new Set(codes.filter((code): code is string => code !== null))];
    const rows = wanted.length > 0 ? await this.items.findByCodes(wanted) : [];
    const found = new Map(rows.map((row) => [row.code, row]));
    return codes.map((code) => {
      const row = code === null ? undefined : found.get(code);
      return row ? this.publicRecordOf(row) : null;
    });
  }

  private publicRecordOf(row: PublicItemRow): PublicItemRecord {
    return { item: this.toPublic(row, null), ownerUserId: row.owner_user_id, coOwnerUserIds: row.co_owner_user_ids };
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
          { code: row.code, ownerUserId, claimedAt: (row.claimed_at as Date).toISOString(), name: row.name },
          { aggregateId: row.code, version: row.version },
        );
        return this.toPublic(row, ownerUserId, { role: 'owner', shared: false });
      }
      throw new Error(`no free tag code after ${MINT_ATTEMPTS} attempts`);
    });
  }

  /** The items the user owns or co-owns, as they see them (with their role, and whether the item is shared). */
  async listOwned(userId: string, page: { limit: number; offset: number }): Promise<PublicItem[]> {
    const rows = await this.items.findOwned(userId, page);
    return rows.map((row) => this.toPublic(row, userId, row));
  }

  /** One of the owner's items. Someone else's item is the same 404 as a missing one: no probing whose it is. */
  async getOwned(input: string, ownerUserId: string): Promise<PublicItem> {
    const code = parseTagCode(input);
    const row = code ? await this.items.findOwnedByCode(code, ownerUserId) : null;
    if (!row) throw itemNotFound();
    return this.toPublic(row, ownerUserId, row);
  }

  /**
   * Renames an item, sets its reward and/or its lost mode and note, and records `items.item.updated.v1` with the state
   * after the change in the same transaction. While rewards are disabled a positive reward is a validation error, and
   * a reward of 0 (the spec's `{name, reward}` body from a client that offers none) is accepted and changes nothing.
   * A note is for a lost item: with `lost: false`, or alone on an item that is not lost, it is a validation error.
   */
  async update(input: string, ownerUserId: string, requested: { name?: string; reward?: number; lost?: boolean; lost_note?: string }): Promise<PublicItem> {
    const changes = { ...requested };
    if (requested.reward !== undefined && !this.config.REWARDS_ENABLED) {
      if (requested.reward !== 0) throw RpcError.validation({ reward: 'invalid' }, 'Rewards are not enabled.');
      delete changes.reward;
    }
    const code = parseTagCode(input);
    if (!code) throw itemNotFound();
    return this.items.transaction(async (manager) => {
      // Who the caller is to the item, and whether it is lost, are read with the item locked: a co-owner removed, or
      // lost mode ended, a moment before is seen as such (read first, a removed co-owner could still change it, and a
      // note could land on an item no longer lost).
      if (!(await this.items.lock(manager, code))) throw itemNotFound();
      // The caller is the owner or a co-owner; a co-owner marks it lost or found and writes its note (lost mode is
      // theirs to run), and changes nothing else (name, reward).
      const person = await this.items.findOwnedByCode(code, ownerUserId, manager);
      if (!person || person.owner_user_id === null) throw itemNotFound();
      if (person.role === 'co-owner' && (changes.name !== undefined || changes.reward !== undefined)) throw ownerOnly();
      if (changes.lost_note !== undefined && changes.lost !== true && !(changes.lost === undefined && person.lost_at)) {
        throw RpcError.validation({ lost_note: 'invalid' }, 'A note is for an item marked lost.');
      }
      // Nothing to change is not a change: no version, no event.
      if (changes.name === undefined && changes.reward === undefined && changes.lost === undefined && changes.lost_note === undefined) return this.toPublic(person, ownerUserId, person);
      const owner = person.owner_user_id;
      const row = await this.items.updateOwned(manager, { code, ownerUserId: owner, name: changes.name, rewardCents: changes.reward, lost: changes.lost, lostNote: changes.lost_note });
      if (!row) throw itemNotFound();
      await this.outbox.record(
        manager,
        'items.item.updated.v1',
        { code: row.code, name: row.name, rewardCents: row.reward_cents },
        { aggregateId: row.code, version: row.version },
      );
      return this.toPublic(row, ownerUserId, person);
    });
  }

  /** Deletes the owner's item and records `items.item.deleted.v1` (messaging drops its conversations). */
  async delete(input: string, ownerUserId: string): Promise<void> {
    const code = parseTagCode(input);
    if (!code) throw itemNotFound();
    if ((await this.items.findOwnedByCode(code, ownerUserId))?.role === 'co-owner') throw ownerOnly();
    await this.items.transaction(async (manager) => {
      const version = await this.items.deleteOwned(manager, code, ownerUserId);
      if (version === null) throw itemNotFound();
      await this.outbox.record(manager, 'items.item.deleted.v1', { code }, { aggregateId: code, version });
    });
  }

  /** The item as `viewerUserId` sees it; `person` when they are the owner or a co-owner (their role, and whether it is shared). */
  private toPublic(row: ItemRow, viewerUserId: string | null, person?: { role: ItemRole; shared: boolean }): PublicItem {
    const isOwner = (viewerUserId !== null && row.owner_user_id === viewerUserId) || person?.role === 'co-owner';
    return {
      code: formatTagCode(row.code),
      name: row.name,
      ...(this.config.REWARDS_ENABLED && row.reward_cents !== null ? { reward: row.reward_cents } : {}),
      claimed_at: row.claimed_at ? row.claimed_at.toISOString() : null,
      activated: row.claimed_at !== null,
      is_owner: isOwner,
      ...(viewerUserId !== null && row.owner_user_id === viewerUserId ? { user_id: row.owner_user_id } : {}),
      ...(row.photo_version !== null ? { photo: photoUrls(row.code, row.photo_version) } : {}),
      lost: row.lost_at !== null,
      ...(row.lost_at !== null && row.lost_note ? { lost_note: row.lost_note } : {}),
      ...(person ? { role: person.role, shared: person.shared || person.role === 'co-owner' } : {}),
    };
  }
}

// What only the owner may do (rename, set a reward, delete, reset, invite, hand over), asked by a co-owner.
function ownerOnly(): RpcError {
  return RpcError.forbidden(ResponseCode.FORBIDDEN, 'Only the item’s owner can do this.');
}

// One answer for unknown, malformed and other people's codes.
function itemNotFound(): RpcError {
  return RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
}
