import { Body, Controller, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { claimBodySchema, claimResponseSchema, type ClaimBody, type ClaimResponse } from '@homing/contracts';
import { OptionalCurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiRoute, ApiTags } from '../http/api-route.decorator';
import { requestLanguage } from '../http/request-language';
import { ZodBodyPipe } from '../http/zod-body.pipe';
import { ClaimsService } from './claims.service';

@ApiTags('items')
@Controller('claim')
export class ClaimsHttpController {
  constructor(private readonly claims: ClaimsService) {}

  @Post()
  @ApiRoute({
    summary: 'Activate a tag with an e-mail address',
    description:
      'NEW_USER_REGISTERED (with password_token and login_token) or ITEM_CLAIMED_SUCCESFULLY; 409 ALREADY_CLAIMED; 404 for an unknown code (counted against the unknown-code limit, like a scan). ' +
      'A logged-in caller claims for themselves: the e-mail of the token is used and the body’s is ignored.',
    caller: 'anyone-or-user',
    // Each try with a wrong code is a guess at someone's tag.
    rateLimit: 'login',
    body: claimBodySchema,
    answer: claimResponseSchema,
    errors: [404, 422, 429],
  })
  claim(
    @Body(new ZodBodyPipe(claimBodySchema)) body: ClaimBody,
    @OptionalCurrentUser() caller: AuthenticatedUser | null,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ClaimResponse> {
    return this.claims.claim(body, caller, requestLanguage(request), request.ip, reply);
  }
}
