import { Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { parseTagCode, ResponseCode, type ScanHistory } from '@homing/contracts';
import { InjectConfig, RpcClient } from '@homing/platform';
import type { GatewayConfig } from '../config/gateway.config';
import { fromOurPages, type RequestSiteHeaders } from '../http/from-our-pages';
import { ApiError } from '../http/http-error';
import { PublicItemsService } from '../items/public-items.service';
import { ScanLimits } from './scan-limits';
import { deviceKindOf, placeOf } from './scan-place';

/** A finder page's visit, recorded for its owner (and announced while the item is lost); an owner's history of them. */
@Injectable()
export class ScansService {
  private readonly publicOrigin: string;

  constructor(
    @InjectConfig() config: GatewayConfig,
    private readonly rpc: RpcClient,
    private readonly limits: ScanLimits,
    private readonly publicItems: PublicItemsService,
  ) {
    this.publicOrigin = new URL(config.PUBLIC_URL).origin;
  }

  /**
   * Records a scan with what the gateway alone may know of the visitor, reduced to what the owner is shown: the city
   * and country of the address and the device kind. The address and the User-Agent go no further than here. The
   * owner's own visit to their item's page is no scan.
   */
  async record(
    input: string,
    visitor: { address: string; userAgent: string | undefined; viewerUserId: string | null; headers: RequestSiteHeaders },
    reply: Pick<FastifyReply, 'header'>,
  ): Promise<void> {
    if (!fromOurPages(visitor.headers, this.publicOrigin)) throw new ApiError(403, ResponseCode.FORBIDDEN, 'Scans are recorded by the finder page itself.');
    const code = parseTagCode(input);
    if (!code) throw new ApiError(404, ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
    if (visitor.viewerUserId !== null && (await this.publicItems.scan(code, visitor.viewerUserId)).is_owner) return;
    await this.limits.admit(visitor.address, code, reply);
    const place = await placeOf(visitor.address);
    await this.rpc.request('items.rpc.record-scan', { code, ...place, deviceKind: deviceKindOf(visitor.userAgent) });
  }

  history(ownerUserId: string, code: string): Promise<ScanHistory> {
    return this.rpc.request('items.rpc.list-scans', { code, ownerUserId });
  }
}
