import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { languageBodySchema, userSchema, visibleUserSchema, type LanguageBody, type User } from '@homing/contracts';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiRoute } from '../http/api-route.decorator';
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
