import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import {
  pushReregisterBodySchema,
  pushSubscriptionSchema,
  pushUnregisterBodySchema,
  vapidPublicKeySchema,
  type PushReregisterBody,
  type PushSubscriptionBody,
  type PushUnregisterBody,
  type VapidPublicKey,
} from '@homing/contracts';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { FinderToken } from '../conversations/finder-token';
import { ApiRoute, ApiTags } from '../http/api-route.decorator';
import { ZodBodyPipe } from '../http/zod-body.pipe';
import { PushService } from './push.service';

const NOT_A_PUSH_SERVICE = 'An endpoint that is not https on a known push service is 422 (endpoint: invalid).';

@ApiTags('push')
@Controller()
export class PushHttpController {
  constructor(private readonly push: PushService) {}

  @Get('push/vapid-public-key')
  @ApiRoute({ summary: 'The VAPID public key the browser subscribes with (applicationServerKey, base64url)', caller: 'anyone', answer: vapidPublicKeySchema })
  vapidPublicKey(): Promise<VapidPublicKey> {
    return this.push.vapidPublicKey();
  }

  @Post('user/push/register')
  @ApiRoute({
    summary: 'Tell the logged-in owner of new messages by push in this browser',
    description: `At most 16 per owner: the oldest goes. ${NOT_A_PUSH_SERVICE}`,
    status: 204,
    body: pushSubscriptionSchema,
    errors: [422],
  })
  register(@Body(new ZodBodyPipe(pushSubscriptionSchema)) body: PushSubscriptionBody, @CurrentUser() owner: AuthenticatedUser): Promise<void> {
    return this.push.registerOwner(owner, body);
  }

  @Post('user/push/reregister')
  @ApiRoute({ summary: 'Replace a subscription the browser changed (old_endpoint) with its new one', description: NOT_A_PUSH_SERVICE, status: 204, body: pushReregisterBodySchema, errors: [422] })
  reregister(@Body(new ZodBodyPipe(pushReregisterBodySchema)) body: PushReregisterBody, @CurrentUser() owner: AuthenticatedUser): Promise<void> {
    return this.push.reregisterOwner(owner, body);
  }

  @Post('user/push/unregister')
  @ApiRoute({ summary: 'Stop pushing to this browser’s subscription (an unknown endpoint is no error)', status: 204, body: pushUnregisterBodySchema, errors: [422] })
  unregister(@Body(new ZodBodyPipe(pushUnregisterBodySchema)) body: PushUnregisterBody, @CurrentUser() owner: AuthenticatedUser): Promise<void> {
    return this.push.unregisterOwner(owner.id, body.endpoint);
  }

  @Post('items/:code/push/register')
  @ApiRoute({
    summary: 'Tell a finder of the owner’s replies by push in this browser',
    description: `For the finder who wrote about the item (X-Finder-Token); anyone else 403 FORBIDDEN. ${NOT_A_PUSH_SERVICE}`,
    caller: 'anyone',
    finderToken: 'required',
    status: 204,
    body: pushSubscriptionSchema,
    errors: [403, 404, 422],
  })
  registerFinder(@Param('code') code: string, @Body(new ZodBodyPipe(pushSubscriptionSchema)) body: PushSubscriptionBody, @FinderToken() finderToken: string | undefined): Promise<void> {
    return this.push.registerFinder(code, finderToken, body);
  }
}
