import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Throttle } from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import { claimBodySchema, claimResponseSchema, ResponseCode, type ClaimBody, type ClaimResponse } from '@homing/contracts';
import { Public, RpcClient } from '@homing/platform';
import { OptionalCurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiError } from '../http/http-error';
import { errorResponses, jsonSchemaOf } from '../http/openapi';
import { RATE_LIMITS } from '../http/rate-limits';
import { requestLanguage } from '../http/request-language';
import { ZodBodyPipe } from '../http/zod-body.pipe';
import { PublicItemCache } from '../items/public-item-cache';

/** Activation of a tag: whoever holds an unclaimed tag makes it theirs. */
@ApiTags('items')
@Controller('claim')
export class ClaimsHttpController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly publicItems: PublicItemCache,
  ) {}

  @Public()
  @Post()
  @HttpCode(200)
  // Each try with a wrong code is a guess at someone's tag.
  @Throttle({ default: RATE_LIMITS.login })
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Activate a tag with an e-mail address',
    description:
      'NEW_USER_REGISTERED (with password_token and login_token) or ITEM_CLAIMED_SUCCESFULLY; 409 ALREADY_CLAIMED; 404 for an unknown code. ' +
      'A logged-in caller claims for themselves: the e-mail of the token is used and the body’s is ignored.',
  })
  @ApiBody({ schema: jsonSchemaOf(claimBodySchema) })
  @ApiOkResponse({ schema: jsonSchemaOf(claimResponseSchema) })
  @ApiResponse(errorResponses[404])
  @ApiResponse(errorResponses[422])
  claim(@Body(new ZodBodyPipe(claimBodySchema)) body: ClaimBody, @OptionalCurrentUser() caller: AuthenticatedUser | null, @Req() request: FastifyRequest): Promise<ClaimResponse> {
    const email = caller?.email ?? body.email;
    if (!email) throw new ApiError(422, ResponseCode.VALIDATION_ERROR, undefined, { email: 'required' });
    return this.publicItems.changing(body.code, this.rpc.request('items.rpc.claim', { code: body.code, email, language: requestLanguage(request) }));
  }
}
