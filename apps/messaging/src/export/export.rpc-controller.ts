import { Controller } from '@nestjs/common';
import { formatTagCode, type RpcRequest as Request, type RpcResponse as Response } from '@homing/contracts';
import { RpcHandler } from '@homing/platform';
import { maskContactDetails } from '../conversations/contact-details';
import { ExportRepository } from './export.repository';

const iso = (time: Date | null): string | null => time?.toISOString() ?? null;

@Controller()
export class ExportRpcController {
  constructor(private readonly repository: ExportRepository) {}

  @RpcHandler('messaging.rpc.export-owner')
  async exportOwner({ ownerUserId }: Request<'messaging.rpc.export-owner'>): Promise<Response<'messaging.rpc.export-owner'>> {
    const conversations = await this.repository.conversationsOfOwner(ownerUserId);
    const messages = await this.repository.messagesOf(conversations.map((conversation) => conversation.id));
    return {
      // The conversation id is how the product knows a finder: it stays out, like everything else about them.
      conversations: conversations.map(({ id, itemCode, startedAt, lastMessageAt, finderLeftAnAddress, contactShared }) => ({
        itemCode: formatTagCode(itemCode),
        startedAt: startedAt.toISOString(),
        lastMessageAt: iso(lastMessageAt),
        finderLeftAnAddress,
        messages: messages
          .filter((message) => message.conversationId === id)
          .map((message) => ({
            author: message.author,
            // The owner's export shows a finder's words as the owner reads them in the product: masked until both agreed.
            content: message.author === 'finder' && !contactShared ? maskContactDetails(message.content).text : message.content,
            createdAt: message.createdAt.toISOString(),
            deliveredAt: iso(message.deliveredAt),
            readAt: iso(message.readAt),
            ...(message.locationLat !== null && message.locationLon !== null
              ? { location: { lat: message.locationLat, lon: message.locationLon, accuracyM: message.locationAccuracyM ?? 0, precise: message.locationPrecise === true } }
              : {}),
          })),
      })),
    };
  }
}
