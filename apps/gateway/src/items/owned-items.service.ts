import { Injectable } from '@nestjs/common';
import type { CreateItemBody, OwnedItemsQuery, PublicItem, UpdateItemBody } from '@homing/contracts';
import { RpcClient } from '@homing/platform';
import { PublicItemCache } from './public-item-cache';

/** The logged-in owner's items. Changes made here are forgotten by this replica's scan cache as soon as items answers. */
@Injectable()
export class OwnedItemsService {
  constructor(
    private readonly rpc: RpcClient,
    private readonly publicItems: PublicItemCache,
  ) {}

  create(ownerUserId: string, body: CreateItemBody, idempotencyKey: string | undefined): Promise<PublicItem> {
    return this.rpc.request('items.rpc.create', { ...body, ownerUserId, idempotencyKey });
  }

  list(ownerUserId: string, page: OwnedItemsQuery): Promise<PublicItem[]> {
    return this.rpc.request('items.rpc.list-owned', { ownerUserId, ...page });
  }

  get(ownerUserId: string, code: string): Promise<PublicItem> {
    return this.rpc.request('items.rpc.get-owned', { code, ownerUserId });
  }

  update(ownerUserId: string, code: string, changes: UpdateItemBody): Promise<PublicItem> {
    return this.publicItems.changing(code, this.rpc.request('items.rpc.update', { ...changes, code, ownerUserId }));
  }

  async delete(ownerUserId: string, code: string): Promise<void> {
    await this.publicItems.changing(code, this.rpc.request('items.rpc.delete', { code, ownerUserId }));
  }
}
