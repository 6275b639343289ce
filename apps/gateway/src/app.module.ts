import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PlatformModule } from '@homing/platform';
import { TagBatchesHttpController } from './admin/tag-batches.http-controller';
import { AuthGuard } from './auth/auth.guard';
import { ClaimsHttpController } from './claims/claims.http-controller';
import { MessageLimits } from './conversations/message-limits';
import { ConversationsHttpController, OwnerConversationsHttpController } from './conversations/conversations.http-controller';
import { MessageStreams } from './conversations/message-streams';
import { ThreadAccessCache } from './conversations/thread-access-cache';
import { ThreadEvents } from './conversations/thread-events';
import { ThreadReaders } from './conversations/thread-readers';
import { ThreadWatermarks } from './conversations/thread-watermarks';
import { GATEWAY_CONFIG, type GatewayConfig } from './config/gateway.config';
import { rateLimitsModule, ClientAddressThrottlerGuard } from './http/rate-limits';
import { AuthHttpController } from './identity/auth.http-controller';
import { UsersHttpController } from './identity/users.http-controller';
import { ItemsHttpController } from './items/items.http-controller';
import { PhotosHttpController } from './photos/photos.http-controller';
import { PushHttpController } from './push/push.http-controller';
import { OwnedItemsHttpController } from './items/owned-items.http-controller';
import { ItemEvents } from './items/item-events';
import { PublicItemCache } from './items/public-item-cache';
import { UnknownCodeLimiter } from './items/unknown-code-limit';
import { QrImages } from './qr/qr-images';
import { QrHttpController } from './qr/qr.http-controller';
import { LangHttpController } from './web/lang.http-controller';

@Module({})
export class AppModule {
  static forConfig(config: GatewayConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forService({
          service: 'gateway',
          config,
          // Rate limits and revoked sessions, shared by every gateway replica.
          redisUrl: config.REDIS_URL,
        }),
        rateLimitsModule(config),
      ],
      controllers: [AuthHttpController, UsersHttpController, ItemsHttpController, ClaimsHttpController, OwnedItemsHttpController, QrHttpController, TagBatchesHttpController, PhotosHttpController, ConversationsHttpController, OwnerConversationsHttpController, PushHttpController],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        UnknownCodeLimiter,
        // Tag scans answered from memory, kept current by items' events (ItemEvents).
        { provide: PublicItemCache, useFactory: () => new PublicItemCache(config.SCAN_CACHE_MAX_ITEMS) },
        ItemEvents,
        MessageLimits,
        // Kept current from events by ThreadEvents: empty polls and message streams without a poll of the database.
        { provide: ThreadWatermarks, useFactory: () => new ThreadWatermarks() },
        { provide: ThreadAccessCache, useFactory: () => new ThreadAccessCache() },
        ThreadReaders,
        MessageStreams,
        ThreadEvents,
        QrImages,
        LangHttpController,
        // In this order: a flood is refused before any token is verified.
        { provide: APP_GUARD, useClass: ClientAddressThrottlerGuard },
        { provide: APP_GUARD, useClass: AuthGuard },
      ],
    };
  }
}
