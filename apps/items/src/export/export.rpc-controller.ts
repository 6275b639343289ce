import { Controller } from '@nestjs/common';
import { formatTagCode, photoUrls, type RpcRequest as Request, type RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { ExportRepository } from './export.repository';

@Controller()
export class ExportRpcController {
  constructor(private readonly repository: ExportRepository) {}

  @RpcHandler('items.rpc.export-owner')
  async exportOwner({ ownerUserId }: Request<'items.rpc.export-owner'>): Promise<Response<'items.rpc.export-owner'>> {
    const [items, scans, shared] = await Promise.all([
      this.repository.itemsOfOwner(ownerUserId),
      this.repository.scansOfOwner(ownerUserId),
      this.repository.itemsSharedWith(ownerUserId),
    ]);
    return {
      sharedItems: shared.map((item) => ({ code: formatTagCode(item.code), name: item.name, addedAt: item.addedAt.toISOString() })),
      items: items.map((item) => ({
        code: formatTagCode(item.code),
        name: item.name,
        rewardCents: item.rewardCents,
        createdAt: item.createdAt.toISOString(),
        claimedAt: item.claimedAt?.toISOString() ?? null,
        photo: item.photoVersion === null ? null : photoUrls(item.code, item.photoVersion),
        lostAt: item.lostAt?.toISOString() ?? null,
        lostNote: item.lostNote,
        scans: scans
          .filter((scan) => scan.itemCode === item.code)
          .map((scan) => ({ scannedAt: scan.scannedAt.toISOString(), city: scan.city, country: scan.country, deviceKind: scan.deviceKind })),
      })),
    };
  }
}
