import { Controller } from '@nestjs/common';
import { formatTagCode, shortenPushEndpoint, type RpcRequest as Request, type RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { ExportRepository } from './export.repository';

@Controller()
export class ExportRpcController {
  constructor(private readonly repository: ExportRepository) {}

  @RpcHandler('notifications.rpc.export-user')
  async exportUser({ userId }: Request<'notifications.rpc.export-user'>): Promise<Response<'notifications.rpc.export-user'>> {
    const subscriptions = await this.repository.pushSubscriptionsOf(userId);
    const deliveries = await this.repository.deliveriesTo([userId, ...subscriptions.map((subscription) => subscription.id)]);
    const settings = await this.repository.itemSettingsOf(userId);
    return {
      pushSubscriptions: subscriptions.map(({ endpoint, createdAt }) => ({ endpoint: shortenPushEndpoint(endpoint), createdAt: createdAt.toISOString() })),
      deliveries: deliveries.map(({ kind, channel, status, createdAt, sentAt }) => ({
        kind,
        channel,
        status,
        createdAt: createdAt.toISOString(),
        sentAt: sentAt?.toISOString() ?? null,
      })),
      itemSettings: settings.map(({ itemCode, email, push, updatedAt }) => ({ itemCode: formatTagCode(itemCode), email, push, updatedAt: updatedAt.toISOString() })),
    };
  }
}
