import { Injectable } from '@nestjs/common';
import { parseTagCode, relayTagAddress, ResponseCode, type PublicItem } from '@homing/contracts';
import { InjectConfig, RpcClient } from '@homing/platform';
import type { GatewayConfig } from '../config/gateway.config';
import { ApiError } from '../http/http-error';
import { PublicItemCache, type PublicItemRecord } from './public-item-cache';

/** A tag looked up by whoever holds it: the finder's scan, and the public QR image (which must not exist for made-up codes). */
@Injectable()
export class PublicItemsService {
  constructor(
    private readonly rpc: RpcClient,
    private readonly cache: PublicItemCache,
    @InjectConfig() private readonly config: GatewayConfig,
  ) {}

  /**
   * The item as this viewer sees it. Unknown and malformed codes are the same 404 (counted against the client
   * address's unknown-code limit, like every route with a code: `limitCodeRoutes`). The hottest path (B1): a plain
   * call, no interceptor, no request context.
   */
  scan(input: string, viewerUserId: string | null): Promise<PublicItem> {
    const code = parseTagCode(input);
    // Malformed codes never reach items: same answer as an unknown code, one hop saved.
    if (!code) return Promise.reject(new ApiError(404, ResponseCode.ITEM_NOT_FOUND, 'Item not found.'));
    // Repeated scans are answered from the gateway's memory, kept current by items' events (ItemEvents).
    return this.cache.get(code, viewerUserId, () => this.rpc.request('items.rpc.get-public', { code }).then((record) => this.withRelayAddress(code, record)));
  }

  /**
   * The item of a parsed code as anyone sees it, when this gateway holds it in memory (undefined otherwise), without
   * waiting: most QR images, which their plain route answers without a promise (B6).
   */
  knownItem(canonicalCode: string): PublicItem | undefined {
    return this.cache.getKnown(canonicalCode, null);
  }

  /** The JSON answer to an anonymous scan of a parsed code this gateway holds in memory; undefined otherwise. */
  knownItemJson(canonicalCode: string): string | undefined {
    return this.cache.getKnownAnonymousJson(canonicalCode);
  }

  // An activated item takes mail at its relay address; the address is the same for every viewer, so it is cached.
  private withRelayAddress(canonicalCode: string, record: PublicItemRecord): PublicItemRecord {
    if (!record.item.activated) return record;
    return { ...record, item: { ...record.item, relay_address: relayTagAddress(canonicalCode, this.config.RELAY_DOMAIN) } };
  }
}
