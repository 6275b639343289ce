import { Injectable } from '@nestjs/common';
import { ResponseCode, type ClaimBody, type ClaimResponse, type UserLanguage } from '@homing/contracts';
import { RpcClient } from '@homing/platform';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { ApiError } from '../http/http-error';
import type { FastifyReply } from 'fastify';
import { PublicItemCache } from '../items/public-item-cache';
import { limitUnknownCodeLookups, UnknownCodeLimiter } from '../items/unknown-code-limit';

/** Activation of a tag: whoever holds an unclaimed tag makes it theirs. */
@Injectable()
export class ClaimsService {
  constructor(
    private readonly rpc: RpcClient,
    private readonly publicItems: PublicItemCache,
    private readonly unknownCodes: UnknownCodeLimiter,
  ) {}

  /**
   * A logged-in caller claims for themselves: the token's e-mail, not the body's. The code is a guess like any other:
   * behind the client address's unknown-code limit, an unknown one counting as a miss.
   */
  claim(body: ClaimBody, caller: AuthenticatedUser | null, language: UserLanguage, address: string, reply: Pick<FastifyReply, 'header'>): Promise<ClaimResponse> {
    const email = caller?.email ?? body.email;
    if (!email) throw new ApiError(422, ResponseCode.VALIDATION_ERROR, undefined, { email: 'required' });
    return limitUnknownCodeLookups(this.unknownCodes, address, reply, () =>
      this.publicItems.changing(body.code, this.rpc.request('items.rpc.claim', { code: body.code, email, language })),
    );
  }
}
