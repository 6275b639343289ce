import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ResponseCode, type TagBatch, type TagBatchRecord } from '@homing/contracts';
import { IdempotencyKeys, RpcError, InjectConfig } from '@homing/platform';
import type { ItemsConfig } from '../config/items.config';
import { mintTagCode } from '../tags/mint-tag-code';
import { TagBatchesRepository, type TagBatchRow, type TagBatchSummaryRow } from './tag-batches.repository';
import { renderSheetPage, sheetPages, TAGS_PER_PAGE } from './tag-sheet';

// UUIDs only: anything else cannot be a batch (and must not reach a uuid column as a query error).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class TagBatchesService {
  constructor(
    private readonly batches: TagBatchesRepository,
    private readonly idempotencyKeys: IdempotencyKeys,
    @InjectConfig() private readonly config: ItemsConfig,
  ) {}

  /**
   * Mints `count` unclaimed tags in one transaction with their batch. Unclaimed tags publish no event: nobody owns
   * them until they are claimed. With an idempotency key (per admin), a retry within 24 h gets the batch the first
   * request minted, and one that arrives while the first is still minting waits for it: never a second batch.
   */
  async create({ idempotencyKey, ...batch }: { count: number; label: string; createdBy: string; idempotencyKey?: string }): Promise<TagBatch> {
    const idempotent = idempotencyKey
      ? { operation: 'items.create-tag-batch', caller: batch.createdBy, key: idempotencyKey, request: { count: batch.count, label: batch.label } }
      : null;
    return this.idempotencyKeys.run(idempotent, async (manager) => {
      const created = await this.batches.insertBatch(manager, { id: randomUUID(), ...batch });
      // An 80-bit code practically never collides; if one does, it is skipped and another minted.
      for (let minted = 0; minted < batch.count; ) {
        minted += await this.batches.insertTags(manager, created.id, Array.from({ length: batch.count - minted }, mintTagCode));
      }
      return toTagBatch(created);
    });
  }

  /** Every batch, newest first, with how many of its tags are activated. */
  async list(): Promise<{ batches: TagBatchRecord[] }> {
    return { batches: (await this.batches.listSummaries()).map(toTagBatchRecord) };
  }

  async get(batchId: string): Promise<TagBatchRecord> {
    const batch = UUID.test(batchId) ? await this.batches.findSummary(batchId) : null;
    if (!batch) throw noSuchBatch();
    return toTagBatchRecord(batch);
  }

  /** A page of the batch's codes in code order, after `after`: the gateway streams files of any size from these. */
  async codes(request: { batchId: string; after?: string; limit: number }): Promise<{ codes: string[] }> {
    const batch = UUID.test(request.batchId) ? await this.batches.findBatch(request.batchId) : null;
    if (!batch) throw noSuchBatch();
    return { codes: await this.batches.findCodesAfter(batch.id, request.after, request.limit) };
  }

  /** One page of the batch's printable sheet. */
  async sheet(batchId: string, page: number): Promise<{ svg: string; page: number; pages: number }> {
    const batch = UUID.test(batchId) ? await this.batches.findBatch(batchId) : null;
    if (!batch) throw noSuchBatch();
    const pages = sheetPages(batch.tag_count);
    if (page > pages) throw RpcError.notFound(ResponseCode.NOT_FOUND, `The sheet has ${pages} pages.`);
    const codes = await this.batches.findCodes(batch.id, { limit: TAGS_PER_PAGE, offset: (page - 1) * TAGS_PER_PAGE });
    const svg = await renderSheetPage({ publicUrl: this.config.PUBLIC_URL, relayDomain: this.config.RELAY_DOMAIN, label: batch.label, codes, page, pages });
    return { svg, page, pages };
  }
}

function noSuchBatch(): RpcError {
  return RpcError.notFound(ResponseCode.NOT_FOUND, 'No such tag batch.');
}

function toTagBatchRecord(row: TagBatchSummaryRow): TagBatchRecord {
  return { ...toTagBatch(row), claimed: row.claimed, createdBy: row.created_by };
}

export function toTagBatch(row: TagBatchRow): TagBatch {
  return { id: row.id, label: row.label, count: row.tag_count, created_at: row.created_at.toISOString(), pages: sheetPages(row.tag_count) };
}
