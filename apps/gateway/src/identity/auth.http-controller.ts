import { Body, Controller, Get, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  emailBodySchema,
  loginBodySchema,
  loginCodeBodySchema,
  registerBodySchema,
  setPasswordBodySchema,
  tokenResponseSchema,
  updatePasswordBodySchema,
  type EmailBody,
  type LoginBody,
  type LoginCodeBody,
  type RegisterBody,
  type SetPasswordBody,
  type TokenResponse,
  type UpdatePasswordBody,
} from '@homing/contracts';
import { bearerTokenOf } from '../auth/access-tokens';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiRoute, ApiTags } from '../http/api-route.decorator';
import { requestLanguage } from '../http/request-language';
import { ZodBodyPipe } from '../http/zod-body.pipe';
import { AuthService, type DONE, type SentAnswer } from './auth.service';

// What every route that logs someone in shares: anyone may call it, at the log-in rate limit, and it answers a token.
// The per-address budget of each kind of e-mail (MailBudgets), counted alike for addresses without an account.
const BUDGET = 'Per address, at most 1 a minute, 5 an hour and 10 a day (login codes and reset links each their own): past that, 429 RATE_LIMITED with Retry-After, for any address.';

const LOGS_IN = { caller: 'anyone', rateLimit: 'login', answer: tokenResponseSchema } as const;

/** Logging in and out, login codes, passwords and token refresh. */
@ApiTags('auth')
@Controller()
export class AuthHttpController {
  constructor(private readonly auth: AuthService) {}

  @Post('user/login')
  @ApiRoute({
    summary: 'Log in with e-mail and password',
    description: 'A wrong password, an unknown address and a locked account answer alike: 401 INVALID_CREDENTIALS.',
    ...LOGS_IN,
    body: loginBodySchema,
    errors: [401, 422],
  })
  login(@Body(new ZodBodyPipe(loginBodySchema)) body: LoginBody): Promise<TokenResponse> {
    return this.auth.login(body);
  }

  @Post('user')
  @ApiRoute({
    summary: 'Register (off unless REGISTRATION_ENABLED: 403 REGISTRATION_DISABLED)',
    ...LOGS_IN,
    status: 201,
    body: registerBodySchema,
    errors: [422],
  })
  register(@Body(new ZodBodyPipe(registerBodySchema)) body: RegisterBody, @Req() request: FastifyRequest): Promise<TokenResponse> {
    return this.auth.register(body, requestLanguage(request));
  }

  @Get('magic-link')
  @ApiRoute({
    summary: 'E-mail a login code',
    description: `Answers the same whether or not the address has an account. ${BUDGET}`,
    caller: 'anyone',
    rateLimit: 'email',
    query: [{ name: 'email', required: true }],
    errors: [422],
  })
  requestLoginCode(@Query('email') email: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<SentAnswer> {
    return this.auth.requestLoginCode(email, reply);
  }

  @Post('magic-link/login')
  @ApiRoute({
    summary: 'Log in with an e-mailed code',
    description: '401 for a wrong code, 422 LOGIN_CODE_EXPIRED for an expired one.',
    ...LOGS_IN,
    body: loginCodeBodySchema,
    errors: [401, 422],
  })
  redeemLoginCode(@Body(new ZodBodyPipe(loginCodeBodySchema)) body: LoginCodeBody): Promise<TokenResponse> {
    return this.auth.redeemLoginCode(body);
  }

  @Post('user/password-forgot')
  @ApiRoute({
    summary: 'E-mail a link to set a new password',
    description: `Never a password; answers the same for unknown addresses. ${BUDGET}`,
    caller: 'anyone',
    rateLimit: 'email',
    body: emailBodySchema,
    errors: [422],
  })
  forgotPassword(@Body(new ZodBodyPipe(emailBodySchema)) body: EmailBody, @Res({ passthrough: true }) reply: FastifyReply): Promise<SentAnswer> {
    return this.auth.forgotPassword(body, reply);
  }

  @Post('user/password')
  @ApiRoute({
    summary: 'Set a password with a reset or set-password token, and log in',
    description: 'Revokes every other session. INVALID_PASSWORD_TOKEN, EXPIRED_PASSWORD_TOKEN.',
    ...LOGS_IN,
    body: setPasswordBodySchema,
    errors: [422],
  })
  setPassword(@Body(new ZodBodyPipe(setPasswordBodySchema)) body: SetPasswordBody): Promise<TokenResponse> {
    return this.auth.setPassword(body);
  }

  @Post('user/update-password')
  @ApiRoute({ summary: 'Change the password of the logged-in user', description: 'Revokes the user’s other sessions.', body: updatePasswordBodySchema, errors: [422] })
  updatePassword(@Body(new ZodBodyPipe(updatePasswordBodySchema)) body: UpdatePasswordBody, @CurrentUser() user: AuthenticatedUser): Promise<typeof DONE> {
    return this.auth.updatePassword(user, body.password);
  }

  @Post('auth/refresh-token')
  @ApiRoute({
    summary: 'Exchange the current access token, even an expired one, for a new one while its session lives',
    description: 'A token already exchanged, presented again after a 10 s grace, revokes the session.',
    // Public: the guard would refuse the expired token this route exists for.
    caller: 'anyone-or-user',
    rateLimit: 'login',
    answer: tokenResponseSchema,
    errors: [401],
  })
  refreshToken(@Req() request: FastifyRequest): Promise<TokenResponse> {
    return this.auth.refreshToken(bearerTokenOf(request));
  }

  @Post('auth/logout')
  @ApiRoute({ summary: 'Log out: the session and every token of it stop working at once' })
  logout(@CurrentUser() user: AuthenticatedUser): Promise<typeof DONE> {
    return this.auth.logout(user);
  }
}
