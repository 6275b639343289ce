import { Body, Controller, Delete, Get, Post, Query } from '@nestjs/common';
import { z } from 'zod';
import { deleteAccountBodySchema, languageBodySchema, ResponseCode, userSchema, visibleUserSchema, type DeleteAccountBody, type LanguageBody, type User } from '@homing/contracts';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiRoute, ApiTags } from '../http/api-route.decorator';
import { ZodBodyPipe } from '../http/zod-body.pipe';
import { UsersService, type VisibleUser } from './users.service';

/** The logged-in user's own account. */
@ApiTags('user')
@Controller('user')
export class UsersHttpController {
  constructor(private readonly users: UsersService) {}

  @Get('me')
  @ApiRoute({ summary: 'The logged-in user: id, e-mail and language', answer: userSchema })
  me(@CurrentUser() user: AuthenticatedUser): Promise<User> {
    return this.users.me(user);
  }

  @Post('language')
  @ApiRoute({ summary: 'Set the language of the interface and of the e-mails (en, nl, es)', body: languageBodySchema, answer: userSchema, errors: [422] })
  setLanguage(@Body(new ZodBodyPipe(languageBodySchema)) body: LanguageBody, @CurrentUser() user: AuthenticatedUser): Promise<User> {
    return this.users.setLanguage(user, body.language);
  }

  @Delete()
  @ApiRoute({
    summary: 'Erase the logged-in user’s account and everything kept about it',
    description:
      'Proof by `password`, or by `code` (a login code from `GET /magic-link`) for an owner without one. Every session ends at once; items are deleted and their tags retired for good (they answer like unknown codes), with their conversations, photos, push subscriptions and delivery records; a last e-mail confirms. 401 INVALID_CREDENTIALS for a wrong password or code (counted like a failed log-in), 422 LOGIN_CODE_EXPIRED.',
    body: deleteAccountBodySchema,
    answer: z.object({ response_code: z.literal(ResponseCode.USER_DELETED) }),
    rateLimit: 'login',
    errors: [422],
  })
  delete(@Body(new ZodBodyPipe(deleteAccountBodySchema)) body: DeleteAccountBody, @CurrentUser() user: AuthenticatedUser): Promise<{ response_code: typeof ResponseCode.USER_DELETED }> {
    return this.users.delete(user, body);
  }

  @Get('many')
  @ApiRoute({
    summary: 'Users by id (comma-separated `ids`)',
    description: 'Only the caller is shown with an e-mail and language; anyone else by id only.',
    query: [{ name: 'ids', required: true, description: 'Comma-separated user ids, at most 100' }],
    answer: z.array(visibleUserSchema),
    errors: [422],
  })
  many(@Query('ids') ids: unknown, @CurrentUser() user: AuthenticatedUser): Promise<VisibleUser[]> {
    return this.users.many(user, ids);
  }
}
