import { Body, Controller, Get, HttpCode, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Throttle } from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import {
  emailBodySchema,
  emailSchema,
  loginBodySchema,
  loginCodeBodySchema,
  registerBodySchema,
  ResponseCode,
  setPasswordBodySchema,
  tokenResponseSchema,
  toValidationMap,
  updatePasswordBodySchema,
  type EmailBody,
  type LoginBody,
  type LoginCodeBody,
  type RegisterBody,
  type SetPasswordBody,
  type TokenResponse,
  type UpdatePasswordBody,
} from '@homing/contracts';
import { Public, RpcClient } from '@homing/platform';
import { bearerTokenOf } from '../auth/auth.guard';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiError } from '../http/http-error';
import { errorResponses, jsonSchemaOf } from '../http/openapi';
import { RATE_LIMITS } from '../http/rate-limits';
import { requestLanguage } from '../http/request-language';
import { ZodBodyPipe } from '../http/zod-body.pipe';

/** What an e-mail-sending request answers, whether or not the address has an account (S2). */
export interface SentAnswer {
  message: string;
}
const LOGIN_CODE_SENT: SentAnswer = { message: 'If an account uses this address, a login code is on its way.' };
const RESET_LINK_SENT: SentAnswer = { message: 'If an account uses this address, a link to set a new password is on its way.' };
const DONE = { message: 'Done.' };

const tokenAnswer = { schema: jsonSchemaOf(tokenResponseSchema) };

/** Logging in and out, login codes, passwords and token refresh: each a call to identity. */
@ApiTags('auth')
@Controller()
export class AuthHttpController {
  constructor(private readonly rpc: RpcClient) {}

  @Public()
  @Post('user/login')
  @HttpCode(200)
  @Throttle({ default: RATE_LIMITS.login })
  @ApiOperation({ summary: 'Log in with e-mail and password', description: 'A wrong password, an unknown address and a locked account answer alike: 401 INVALID_CREDENTIALS.' })
  @ApiBody({ schema: jsonSchemaOf(loginBodySchema) })
  @ApiOkResponse(tokenAnswer)
  @ApiResponse(errorResponses[401])
  @ApiResponse(errorResponses[422])
  login(@Body(new ZodBodyPipe(loginBodySchema)) body: LoginBody): Promise<TokenResponse> {
    return this.rpc.request('identity.rpc.login', body);
  }

  @Public()
  @Post('user')
  @HttpCode(201)
  @Throttle({ default: RATE_LIMITS.login })
  @ApiOperation({ summary: 'Register (off unless REGISTRATION_ENABLED: 403 REGISTRATION_DISABLED)' })
  @ApiBody({ schema: jsonSchemaOf(registerBodySchema) })
  @ApiResponse({ status: 201, ...tokenAnswer })
  @ApiResponse(errorResponses[422])
  register(@Body(new ZodBodyPipe(registerBodySchema)) body: RegisterBody, @Req() request: FastifyRequest): Promise<TokenResponse> {
    return this.rpc.request('identity.rpc.register', { ...body, language: requestLanguage(request) });
  }

  @Public()
  @Get('magic-link')
  @Throttle({ default: RATE_LIMITS.email })
  @ApiOperation({ summary: 'E-mail a login code', description: 'Answers the same whether or not the address has an account.' })
  @ApiQuery({ name: 'email', required: true })
  @ApiResponse(errorResponses[422])
  async requestLoginCode(@Query('email') email: unknown): Promise<SentAnswer> {
    await this.rpc.request('identity.rpc.request-login-code', { email: validEmail(email) });
    return LOGIN_CODE_SENT;
  }

  @Public()
  @Post('magic-link/login')
  @HttpCode(200)
  @Throttle({ default: RATE_LIMITS.login })
  @ApiOperation({ summary: 'Log in with an e-mailed code', description: '401 for a wrong code, 422 LOGIN_CODE_EXPIRED for an expired one.' })
  @ApiBody({ schema: jsonSchemaOf(loginCodeBodySchema) })
  @ApiOkResponse(tokenAnswer)
  @ApiResponse(errorResponses[401])
  @ApiResponse(errorResponses[422])
  redeemLoginCode(@Body(new ZodBodyPipe(loginCodeBodySchema)) body: LoginCodeBody): Promise<TokenResponse> {
    return this.rpc.request('identity.rpc.redeem-login-code', body);
  }

  @Public()
  @Post('user/password-forgot')
  @HttpCode(200)
  @Throttle({ default: RATE_LIMITS.email })
  @ApiOperation({ summary: 'E-mail a link to set a new password', description: 'Never a password; answers the same for unknown addresses.' })
  @ApiBody({ schema: jsonSchemaOf(emailBodySchema) })
  @ApiResponse(errorResponses[422])
  async forgotPassword(@Body(new ZodBodyPipe(emailBodySchema)) body: EmailBody): Promise<SentAnswer> {
    await this.rpc.request('identity.rpc.request-password-reset', body);
    return RESET_LINK_SENT;
  }

  @Public()
  @Post('user/password')
  @HttpCode(200)
  @Throttle({ default: RATE_LIMITS.login })
  @ApiOperation({ summary: 'Set a password with a reset or set-password token, and log in', description: 'Revokes every other session. INVALID_PASSWORD_TOKEN, EXPIRED_PASSWORD_TOKEN.' })
  @ApiBody({ schema: jsonSchemaOf(setPasswordBodySchema) })
  @ApiOkResponse(tokenAnswer)
  @ApiResponse(errorResponses[422])
  setPassword(@Body(new ZodBodyPipe(setPasswordBodySchema)) body: SetPasswordBody): Promise<TokenResponse> {
    return this.rpc.request('identity.rpc.set-password', body);
  }

  @Post('user/update-password')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Change the password of the logged-in user', description: 'Revokes the user’s other sessions.' })
  @ApiBody({ schema: jsonSchemaOf(updatePasswordBodySchema) })
  @ApiResponse(errorResponses[401])
  @ApiResponse(errorResponses[422])
  async updatePassword(@Body(new ZodBodyPipe(updatePasswordBodySchema)) body: UpdatePasswordBody, @CurrentUser() user: AuthenticatedUser): Promise<typeof DONE> {
    await this.rpc.request('identity.rpc.update-password', { userId: user.id, sessionId: user.sessionId, password: body.password });
    return DONE;
  }

  @Public()
  @Post('auth/refresh-token')
  @HttpCode(200)
  @Throttle({ default: RATE_LIMITS.login })
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Exchange the current access token, even an expired one, for a new one while its session lives',
    description: 'A token already exchanged, presented again after a 10 s grace, revokes the session.',
  })
  @ApiOkResponse(tokenAnswer)
  @ApiResponse(errorResponses[401])
  refreshToken(@Req() request: FastifyRequest): Promise<TokenResponse> {
    const token = bearerTokenOf(request);
    if (!token) throw new ApiError(401, ResponseCode.UNAUTHORIZED, 'Send the access token to refresh as `Authorization: Bearer <token>`.');
    return this.rpc.request('identity.rpc.refresh-token', { token });
  }

  @Post('auth/logout')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Log out: the session and every token of it stop working at once' })
  @ApiResponse(errorResponses[401])
  async logout(@CurrentUser() user: AuthenticatedUser): Promise<typeof DONE> {
    await this.rpc.request('identity.rpc.logout', { userId: user.id, sessionId: user.sessionId });
    return DONE;
  }
}

function validEmail(value: unknown): string {
  const parsed = emailSchema.safeParse(typeof value === 'string' ? value : undefined);
  if (!parsed.success) throw new ApiError(422, ResponseCode.VALIDATION_ERROR, undefined, { email: toValidationMap(parsed.error, value)._ ?? 'email' });
  return parsed.data;
}
