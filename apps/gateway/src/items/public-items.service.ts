import { Injectable } from '@nestjs/common';
import { parseTagCode, relayTagAddress, ResponseCode, type PublicItem } from '@homing/contracts';
import { InjectConfig, RpcClient } from '@homing/platform';
import type { GatewayConfig } from '../config/gateway.config';
import { ApiError } from '../http/http-error';
import { PublicItemCache, type PublicItemRecord } from './public-item-cache';
import { PublicItemLookups } from './public-item-lookups';

// What items answers for an unknown code, and the gateway for a malformed one: the same 404.
const itemNotFound = () => new ApiError(404, ResponseCode.ITEM_NOT_FOUND, 'Item not found.');

/** A tag looked up by whoever holds it: the finder's scan, and the public QR image (which must not exist for made-up codes). */
@Injectable()
export class PublicItemsService {
  // Scans that miss the cache in one turn of the event loop are asked of items together.
  private readonly lookups = new PublicItemLookups((codes) => this.rpc.request('items.rpc.get-public-many', { codes }));

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
    if (!code) return Promise.reject(itemNotFound());
    // Repeated scans are answered from the gateway's memory, kept current by items' events (ItemEvents).
    return this.cache.get(code, viewerUserId, () =>
      this.lookups.lookUp(code).then((record) => {
        if (!record) throw itemNotFound();
        return this.withRelayAddress(code, record);
      }),
    );
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
