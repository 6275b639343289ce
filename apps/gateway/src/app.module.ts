import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PlatformModule, RedisClient } from '@homing/platform';
import { TagBatchesHttpController } from './admin/tag-batches.http-controller';
import { AccessTokens } from './auth/access-tokens';
import { AuthGuard } from './auth/auth.guard';
import { ClaimsHttpController } from './claims/claims.http-controller';
import { ClaimsService } from './claims/claims.service';
import { TagBatchesService } from './admin/tag-batches.service';
import { ConversationsService } from './conversations/conversations.service';
import { ExportHttpController } from './export/export.http-controller';
import { ExportService } from './export/export.service';
import { AuthService } from './identity/auth.service';
import { MailBudgets } from './identity/mail-budgets';
import { UsersService } from './identity/users.service';
import { OwnedItemsService } from './items/owned-items.service';
import { PublicItemsService } from './items/public-items.service';
import { PhotosService } from './photos/photos.service';
import { PushService } from './push/push.service';
import { QrService } from './qr/qr.service';
import { MessageLimits } from './conversations/message-limits';
import { ResumeLinkLimits } from './conversations/resume-link-limits';
import { ConversationsHttpController, OwnerConversationsHttpController } from './conversations/conversations.http-controller';
import { MessageStreams } from './conversations/message-streams';
import { StreamLeases } from './conversations/stream-leases';
import { ThreadAccessCache } from './conversations/thread-access-cache';
import { ThreadEvents } from './conversations/thread-events';
import { ThreadReaders } from './conversations/thread-readers';
import { ThreadWatermarks } from './conversations/thread-watermarks';
import type { GatewayConfig } from './config/gateway.config';
import { rateLimitsModule, ClientAddressThrottlerGuard } from './http/rate-limits';
import { AuthHttpController } from './identity/auth.http-controller';
import { PasskeysHttpController } from './identity/passkeys.http-controller';
import { UsersHttpController } from './identity/users.http-controller';
import { ItemsHttpController } from './items/items.http-controller';
import { PhotosHttpController } from './photos/photos.http-controller';
import { PushHttpController } from './push/push.http-controller';
import { OwnedItemsHttpController } from './items/owned-items.http-controller';
import { ItemEvents } from './items/item-events';
import { PublicItemCache } from './items/public-item-cache';
import { UnknownCodeLimiter } from './items/unknown-code-limit';
import { ScanPlainRoute } from './items/scan.plain-route';
import { QrImages } from './qr/qr-images';
import { QrHttpController } from './qr/qr.http-controller';
import { QrPlainRoute } from './qr/qr.plain-route';
import { LangHttpController } from './web/lang.http-controller';
import { AddressHashes } from './scans/address-hashes';
import { ScanLimits } from './scans/scan-limits';
import { ScansHttpController } from './scans/scans.http-controller';
import { SafeHandoverHttpController } from './conversations/safe-handover.http-controller';
import { PeopleHttpController } from './people/people.http-controller';
import { PeopleService } from './people/people.service';
import { ScansService } from './scans/scans.service';
import { FinderPageHttpController } from './web/finder-page.http-controller';

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
      controllers: [AuthHttpController, UsersHttpController, PasskeysHttpController, ItemsHttpController, ClaimsHttpController, OwnedItemsHttpController, QrHttpController, TagBatchesHttpController, PhotosHttpController, ConversationsHttpController, OwnerConversationsHttpController, PushHttpController, ExportHttpController, ScansHttpController, SafeHandoverHttpController, PeopleHttpController],
      providers: [
        // The decisions behind the routes, one service per feature.
        AuthService,
        UsersService,
        ExportService,
        PublicItemsService,
        OwnedItemsService,
        ClaimsService,
        QrService,
        TagBatchesService,
        PhotosService,
        ConversationsService,
        PushService,
        ScansService,
        PeopleService,
        UnknownCodeLimiter,
        // Tag scans answered from memory, kept current by items' events (ItemEvents).
        { provide: PublicItemCache, useFactory: () => new PublicItemCache(config.SCAN_CACHE_MAX_ITEMS) },
        ItemEvents,
        MessageLimits,
        MailBudgets,
        ResumeLinkLimits,
        // Scans are limited by keyed digests of addresses, the key rotated daily.
        AddressHashes,
        ScanLimits,
        // Kept current from events by ThreadEvents: empty polls and message streams without a poll of the database.
        { provide: ThreadWatermarks, useFactory: () => new ThreadWatermarks() },
        { provide: ThreadAccessCache, useFactory: () => new ThreadAccessCache() },
        ThreadReaders,
        MessageStreams,
        {
          provide: StreamLeases,
          inject: [RedisClient],
          useFactory: (redis: RedisClient) =>
            new StreamLeases(redis.redis, { perAddress: config.STREAMS_PER_ADDRESS, renewEveryMs: config.SSE_HEARTBEAT_MS, namespace: config.NATS_NAMESPACE }),
        },
        ThreadEvents,
        QrImages,
        AccessTokens,
        // The scan and the QR image, answered outside Nest's per-request pipeline (servePlainHandlers).
        ScanPlainRoute,
        QrPlainRoute,
        LangHttpController,
        // The finder page rendered for browsers without script (only when WEB_DIST holds its server entry).
        FinderPageHttpController,
        // In this order: a flood is refused before any token is verified.
        { provide: APP_GUARD, useClass: ClientAddressThrottlerGuard },
        { provide: APP_GUARD, useClass: AuthGuard },
      ],
    };
  }
}
