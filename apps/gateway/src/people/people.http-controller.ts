import { Body, Controller, Delete, Get, Param, Patch, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import {
  INVITATION_VALID_DAYS,
  invitationAcceptedSchema,
  invitationSchema,
  invitationSentSchema,
  inviteBodySchema,
  ITEM_PEOPLE_MAX,
  itemNotificationSettingsBodySchema,
  itemNotificationSettingsSchema,
  itemPeopleSchema,
  type Invitation,
  type InvitationAccepted,
  type InvitationSent,
  type InviteBody,
  type ItemNotificationSettings,
  type ItemNotificationSettingsBody,
  type ItemPeople,
} from '@homing/contracts';
import { CurrentUser, OptionalCurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiRoute, ApiTags } from '../http/api-route.decorator';
import { NOT_YOURS } from '../http/openapi';
import { requestLanguage } from '../http/request-language';
import { ZodBodyPipe } from '../http/zod-body.pipe';
import { PeopleService } from './people.service';

const OWNER_ONLY = 'Owner only: a co-owner gets 403.';

/** The people of an item (co-owners, the hand-over of ownership) and how each of them is told of it. */
@ApiTags('people')
@Controller()
export class PeopleHttpController {
  constructor(private readonly people: PeopleService) {}

  @Post('user/items/:code/co-owners')
  @ApiRoute({
    summary: 'Invite someone to share the item',
    description: `E-mails a link (/invite/{token}, single use, ${INVITATION_VALID_DAYS} days). At most ${ITEM_PEOPLE_MAX} people and open invitations per item (409 TOO_MANY_PEOPLE); an address already invited is 409 ALREADY_INVITED. ${OWNER_ONLY} ${NOT_YOURS}`,
    rateLimit: 'email',
    status: 201,
    body: inviteBodySchema,
    answer: invitationSentSchema,
    errors: [403, 404, 409, 422],
  })
  invite(@Param('code') code: string, @Body(new ZodBodyPipe(inviteBodySchema)) body: InviteBody, @CurrentUser() user: AuthenticatedUser): Promise<InvitationSent> {
    return this.people.invite(code, user.id, body.email, 'co-owner');
  }

  @Get('user/items/:code/co-owners')
  @ApiRoute({ summary: 'The people of the item and its open invitations', description: `E-mail addresses are shown to the people of the item only. ${NOT_YOURS}`, answer: itemPeopleSchema, errors: [404] })
  list(@Param('code') code: string, @CurrentUser() user: AuthenticatedUser): Promise<ItemPeople> {
    return this.people.list(code, user.id);
  }

  @Delete('user/items/:code/co-owners/:id')
  @ApiRoute({
    summary: 'Remove a co-owner or withdraw an invitation; as a co-owner, leave',
    description: `The owner removes a co-owner (by user id) or withdraws an open invitation (by its id); a co-owner removes only themselves. ${NOT_YOURS}`,
    status: 204,
    errors: [403, 404],
  })
  remove(@Param('code') code: string, @Param('id') id: string, @CurrentUser() user: AuthenticatedUser): Promise<void> {
    return this.people.remove(code, user.id, id);
  }

  @Post('user/items/:code/transfer')
  @ApiRoute({
    summary: 'Hand the item over to a new owner',
    description: `E-mails the new owner a link to accept (${INVITATION_VALID_DAYS} days). On acceptance the conversations are cleared, co-owners removed and this owner loses the item; until then it can be cancelled. ${OWNER_ONLY} ${NOT_YOURS}`,
    rateLimit: 'email',
    status: 201,
    body: inviteBodySchema,
    answer: invitationSentSchema,
    errors: [403, 404, 409, 422],
  })
  transfer(@Param('code') code: string, @Body(new ZodBodyPipe(inviteBodySchema)) body: InviteBody, @CurrentUser() user: AuthenticatedUser): Promise<InvitationSent> {
    return this.people.invite(code, user.id, body.email, 'transfer');
  }

  @Delete('user/items/:code/transfer')
  @ApiRoute({ summary: 'Cancel the hand-over not yet accepted', description: `404 when none is waiting. ${OWNER_ONLY} ${NOT_YOURS}`, status: 204, errors: [403, 404] })
  cancelTransfer(@Param('code') code: string, @CurrentUser() user: AuthenticatedUser): Promise<void> {
    return this.people.cancelTransfer(code, user.id);
  }

  @Get('user/items/:code/notifications')
  @ApiRoute({ summary: 'How the caller is told about this item', description: `Both on unless turned off. ${NOT_YOURS}`, answer: itemNotificationSettingsSchema, errors: [404] })
  settings(@Param('code') code: string, @CurrentUser() user: AuthenticatedUser): Promise<ItemNotificationSettings> {
    return this.people.settings(code, user.id);
  }

  @Patch('user/items/:code/notifications')
  @ApiRoute({ summary: 'Turn e-mail or push about this item on or off, for the caller only', description: NOT_YOURS, body: itemNotificationSettingsBodySchema, answer: itemNotificationSettingsSchema, errors: [404, 422] })
  changeSettings(
    @Param('code') code: string,
    @Body(new ZodBodyPipe(itemNotificationSettingsBodySchema)) body: ItemNotificationSettingsBody,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<ItemNotificationSettings> {
    return this.people.changeSettings(code, user.id, body);
  }

  @Get('invitations/:token')
  @ApiRoute({
    summary: 'What an invitation link offers',
    description: 'The kind (co-owner or transfer), the item’s name and the invited address. An unknown, used, withdrawn or expired link is 422 INVITATION_EXPIRED.',
    caller: 'anyone',
    rateLimit: 'login',
    answer: invitationSchema,
    errors: [422],
  })
  invitation(@Param('token') token: string): Promise<Invitation> {
    return this.people.invitation(token);
  }

  @Post('invitations/:token/accept')
  @ApiRoute({
    summary: 'Accept an invitation',
    description:
      'Logged in: the item is shared with (or handed over to) the caller. Not logged in: with the account of the invited address, made as activation makes one when there is none ' +
      '(then NEW_USER_REGISTERED with a set-password and a login token). 422 INVITATION_EXPIRED once used, withdrawn or expired.',
    caller: 'anyone-or-user',
    rateLimit: 'login',
    answer: invitationAcceptedSchema,
    errors: [422],
  })
  accept(@Param('token') token: string, @OptionalCurrentUser() user: AuthenticatedUser | null, @Req() request: FastifyRequest): Promise<InvitationAccepted> {
    return this.people.accept(token, user?.id ?? null, requestLanguage(request));
  }
}
