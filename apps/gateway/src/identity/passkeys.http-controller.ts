import { Body, Controller, Delete, Get, Param, Patch, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  PASSKEY_CHALLENGE_TTL_SECONDS,
  PASSKEY_RECENT_LOGIN_MINUTES,
  PASSKEYS_PER_USER_MAX,
  passkeyCreationOptionsSchema,
  passkeyListSchema,
  passkeyLoginBodySchema,
  passkeyRegistrationBodySchema,
  passkeyRenameBodySchema,
  passkeyRequestOptionsSchema,
  passkeySchema,
  ResponseCode,
  tokenResponseSchema,
  type Passkey,
  type PasskeyCreationOptions,
  type PasskeyList,
  type PasskeyLoginBody,
  type PasskeyRegistrationBody,
  type PasskeyRenameBody,
  type PasskeyRequestOptions,
  type TokenResponse,
} from '@homing/contracts';
import { InjectConfig, RpcClient } from '@homing/platform';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import type { GatewayConfig } from '../config/gateway.config';
import { ApiRoute, ApiTags } from '../http/api-route.decorator';
import { fromOurPages, requestSiteHeaders } from '../http/from-our-pages';
import { ApiError } from '../http/http-error';
import { ZodBodyPipe } from '../http/zod-body.pipe';

const CHALLENGE = `Its challenge is kept by the server for ${PASSKEY_CHALLENGE_TTL_SECONDS / 60} minutes and taken by the first answer.`;

/** Passkeys: an owner's own (Account) and the log-in with one. Each route is one call to identity, which keeps them. */
@ApiTags('passkeys')
@Controller()
export class PasskeysHttpController {
  private readonly publicOrigin: string;

  constructor(
    private readonly rpc: RpcClient,
    @InjectConfig() config: Pick<GatewayConfig, 'PUBLIC_URL'>,
  ) {
    this.publicOrigin = new URL(config.PUBLIC_URL).origin;
  }

  @Get('user/passkeys')
  @ApiRoute({ summary: 'The logged-in user’s passkeys', answer: passkeyListSchema })
  list(@CurrentUser() user: AuthenticatedUser): Promise<PasskeyList> {
    return this.rpc.request('identity.rpc.list-passkeys', { userId: user.id });
  }

  @Post('user/passkeys/options')
  @ApiRoute({
    summary: 'Options to create a passkey (for the browser’s navigator.credentials.create)',
    description: `Only within ${PASSKEY_RECENT_LOGIN_MINUTES} minutes of logging in: later, 403 RECENT_LOGIN_REQUIRED (log in again). ${CHALLENGE} At most ${PASSKEYS_PER_USER_MAX} passkeys: 409 TOO_MANY_PASSKEYS.`,
    answer: passkeyCreationOptionsSchema,
    errors: [403, 409],
  })
  registrationOptions(@CurrentUser() user: AuthenticatedUser): Promise<PasskeyCreationOptions> {
    return this.rpc.request('identity.rpc.passkey-registration-options', { userId: user.id, sessionId: user.sessionId });
  }

  @Post('user/passkeys')
  @ApiRoute({
    summary: 'Add the passkey the browser created with those options',
    description: 'The answer must be to this session’s challenge, from PUBLIC_URL’s origin: otherwise 422 VALIDATION_ERROR {response: invalid}. E-mails the owner.',
    status: 201,
    body: passkeyRegistrationBodySchema,
    answer: passkeySchema,
    errors: [409, 422],
  })
  register(@Body(new ZodBodyPipe(passkeyRegistrationBodySchema)) body: PasskeyRegistrationBody, @CurrentUser() user: AuthenticatedUser): Promise<Passkey> {
    return this.rpc.request('identity.rpc.register-passkey', { userId: user.id, sessionId: user.sessionId, response: body.response });
  }

  @Patch('user/passkeys/:id')
  @ApiRoute({ summary: 'Rename a passkey', body: passkeyRenameBodySchema, answer: passkeySchema, errors: [404, 422] })
  rename(@Param('id') id: string, @Body(new ZodBodyPipe(passkeyRenameBodySchema)) body: PasskeyRenameBody, @CurrentUser() user: AuthenticatedUser): Promise<Passkey> {
    return this.rpc.request('identity.rpc.rename-passkey', { userId: user.id, passkeyId: passkeyIdOf(id), name: body.name });
  }

  @Delete('user/passkeys/:id')
  @ApiRoute({ summary: 'Delete a passkey: it logs in no more', description: 'E-mails the owner.', status: 204, errors: [404] })
  async delete(@Param('id') id: string, @CurrentUser() user: AuthenticatedUser): Promise<void> {
    await this.rpc.request('identity.rpc.delete-passkey', { userId: user.id, passkeyId: passkeyIdOf(id) });
  }

  @Post('user/login/passkey-options')
  @ApiRoute({
    summary: 'Options to log in with a passkey (for navigator.credentials.get)',
    description: `No address needed: the browser offers the passkeys it holds for this site. ${CHALLENGE} No body; 403 from another site’s page (Sec-Fetch-Site, else Origin).`,
    // The general limit, not the login one: the login page asks for these on every visit (the e-mail field's passkey
    // suggestions), and a log-in is counted when it is tried (`POST /user/login/passkey`).
    caller: 'anyone',
    answer: passkeyRequestOptionsSchema,
    errors: [403],
  })
  loginOptions(@Req() request: FastifyRequest): Promise<PasskeyRequestOptions> {
    // A bodiless POST needs no preflight: without this, any site's page could have this server keep challenges for it.
    if (!fromOurPages(requestSiteHeaders(request.headers), this.publicOrigin)) throw new ApiError(403, ResponseCode.FORBIDDEN, 'Passkey log-ins start on this site’s own pages.');
    return this.rpc.request('identity.rpc.passkey-login-options', {});
  }

  @Post('user/login/passkey')
  @ApiRoute({
    summary: 'Log in with a passkey',
    description: 'The same session as a password log-in. Every refusal (a used or expired challenge, another origin, an unknown or deleted passkey, a bad signature, a counter gone back) answers as a wrong password: 401 INVALID_CREDENTIALS.',
    caller: 'anyone',
    rateLimit: 'login',
    body: passkeyLoginBodySchema,
    answer: tokenResponseSchema,
    errors: [401, 422],
  })
  login(@Body(new ZodBodyPipe(passkeyLoginBodySchema)) body: PasskeyLoginBody): Promise<TokenResponse> {
    return this.rpc.request('identity.rpc.passkey-login', { response: body.response });
  }
}

/** A passkey's id from the path: anything but a UUID names no passkey. */
function passkeyIdOf(id: string): string {
  const parsed = z.uuid().safeParse(id);
  if (!parsed.success) throw new ApiError(404, ResponseCode.NOT_FOUND, 'Passkey not found.');
  return parsed.data;
}
