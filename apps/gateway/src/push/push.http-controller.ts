import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  pushReregisterBodySchema,
  pushSubscriptionSchema,
  pushUnregisterBodySchema,
  ResponseCode,
  vapidPublicKeySchema,
  type PushReregisterBody,
  type PushSubscriptionBody,
  type PushUnregisterBody,
  type VapidPublicKey,
} from '@homing/contracts';
import { Public, RpcClient } from '@homing/platform';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { FINDER_TOKEN_API_HEADER, FinderToken } from '../conversations/finder-token';
import { ApiError } from '../http/http-error';
import { errorResponses, jsonSchemaOf } from '../http/openapi';
import { ZodBodyPipe } from '../http/zod-body.pipe';

const NOT_A_PUSH_SERVICE = 'An endpoint that is not https on a known push service is 422 (endpoint: invalid).';

/** Web push: the application server key, and the subscriptions of owners and finders (kept by notifications). */
@ApiTags('push')
@Controller()
export class PushHttpController {
  constructor(private readonly rpc: RpcClient) {}

  @Public()
  @Get('push/vapid-public-key')
  @ApiOperation({ summary: 'The VAPID public key the browser subscribes with (applicationServerKey, base64url)' })
  @ApiOkResponse({ schema: jsonSchemaOf(vapidPublicKeySchema) })
  vapidPublicKey(): Promise<VapidPublicKey> {
    return this.rpc.request('notifications.rpc.vapid-public-key', {});
  }

  @ApiBearerAuth()
  @Post('user/push/register')
  @HttpCode(204)
  @ApiOperation({ summary: 'Tell the logged-in owner of new messages by push in this browser', description: `At most 16 per owner: the oldest goes. ${NOT_A_PUSH_SERVICE}` })
  @ApiBody({ schema: jsonSchemaOf(pushSubscriptionSchema) })
  @ApiNoContentResponse()
  @ApiResponse(errorResponses[401])
  @ApiResponse(errorResponses[422])
  async register(@Body(new ZodBodyPipe(pushSubscriptionSchema)) body: PushSubscriptionBody, @CurrentUser() owner: AuthenticatedUser): Promise<void> {
    await this.rpc.request('notifications.rpc.register-push', { subscriber: { userId: owner.id }, subscription: body });
  }

  @ApiBearerAuth()
  @Post('user/push/reregister')
  @HttpCode(204)
  @ApiOperation({ summary: 'Replace a subscription the browser changed (old_endpoint) with its new one', description: NOT_A_PUSH_SERVICE })
  @ApiBody({ schema: jsonSchemaOf(pushReregisterBodySchema) })
  @ApiNoContentResponse()
  @ApiResponse(errorResponses[401])
  @ApiResponse(errorResponses[422])
  async reregister(@Body(new ZodBodyPipe(pushReregisterBodySchema)) body: PushReregisterBody, @CurrentUser() owner: AuthenticatedUser): Promise<void> {
    const { old_endpoint: oldEndpoint, ...subscription } = body;
    await this.rpc.request('notifications.rpc.reregister-push', { userId: owner.id, oldEndpoint, subscription });
  }

  @ApiBearerAuth()
  @Post('user/push/unregister')
  @HttpCode(204)
  @ApiOperation({ summary: 'Stop pushing to this browser’s subscription (an unknown endpoint is no error)' })
  @ApiBody({ schema: jsonSchemaOf(pushUnregisterBodySchema) })
  @ApiNoContentResponse()
  @ApiResponse(errorResponses[401])
  @ApiResponse(errorResponses[422])
  async unregister(@Body(new ZodBodyPipe(pushUnregisterBodySchema)) body: PushUnregisterBody, @CurrentUser() owner: AuthenticatedUser): Promise<void> {
    await this.rpc.request('notifications.rpc.unregister-push', { userId: owner.id, endpoint: body.endpoint });
  }

  @Public()
  @Post('items/:code/push/register')
  @HttpCode(204)
  @ApiHeader({ ...FINDER_TOKEN_API_HEADER, required: true })
  @ApiOperation({
    summary: 'Tell a finder of the owner’s replies by push in this browser',
    description: `For the finder who wrote about the item (X-Finder-Token); anyone else 403 FORBIDDEN. ${NOT_A_PUSH_SERVICE}`,
  })
  @ApiBody({ schema: jsonSchemaOf(pushSubscriptionSchema) })
  @ApiNoContentResponse()
  @ApiResponse(errorResponses[403])
  @ApiResponse(errorResponses[404])
  @ApiResponse(errorResponses[422])
  async registerFinder(
    @Param('code') code: string,
    @Body(new ZodBodyPipe(pushSubscriptionSchema)) body: PushSubscriptionBody,
    @FinderToken() finderToken: string | undefined,
  ): Promise<void> {
    const conversationId = await this.finderConversation(code, finderToken);
    await this.rpc.request('notifications.rpc.register-push', { subscriber: { conversationId }, subscription: body });
  }

  /**
   * The conversation a finder token opens, as messaging checks it for the finder's own thread (403 for a token of
   * another item or of a reset conversation). A finder who has not written yet has no messages to be told about.
   */
  private async finderConversation(code: string, finderToken: string | undefined): Promise<string> {
    if (!finderToken) throw new ApiError(403, ResponseCode.FORBIDDEN, 'Only the finder who wrote about this item can subscribe.');
    const messages = await this.rpc.request('messaging.rpc.list-messages', { code, viewerUserId: null, finderToken });
    const conversationId = messages[0]?.conversation_id;
    if (!conversationId) throw new ApiError(403, ResponseCode.FORBIDDEN, 'Write to the owner first, then subscribe.');
    return conversationId;
  }
}
