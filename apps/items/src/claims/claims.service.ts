import { Injectable } from '@nestjs/common';
import { parseTagCode, ResponseCode, type ClaimResponse, type UserLanguage } from '@homing/contracts';
import { OutboxWriter, RpcClient, RpcError } from '@homing/platform';
import { ClaimsRepository } from './claims.repository';

const NOT_FOUND = () => RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
const ALREADY_CLAIMED = () => RpcError.conflict(ResponseCode.ALREADY_CLAIMED, 'This tag has already been activated.');

@Injectable()
export class ClaimsService {
  constructor(
    private readonly claims: ClaimsRepository,
    private readonly outbox: OutboxWriter,
    private readonly rpc: RpcClient,
  ) {}

  /**
   * Activates a tag for the user with this address (ARCHITECTURE §7): identity ensures the user, then one
   * transaction claims the tag with a conditional update and records `items.item.claimed.v1`. If identity cannot
   * answer, nothing here has changed; if another claim won meanwhile, this one answers ALREADY_CLAIMED.
   */
  async claim(input: string, email: string, language: UserLanguage): Promise<ClaimResponse> {
    const code = parseTagCode(input);
    if (!code) throw NOT_FOUND();
    // Checked first, so a wrong or used code creates no account and sends no welcome e-mail.
    const state = await this.claims.stateOf(code);
    if (state === 'unknown') throw NOT_FOUND();
    if (state === 'claimed') throw ALREADY_CLAIMED();

    const user = await this.rpc.request('identity.rpc.ensure-user', { email, language });
    const claimed = await this.claims.transaction(async (manager) => {
      const row = await this.claims.claimIfUnclaimed(manager, code, user.userId);
      if (!row) return false;
      await this.outbox.record(
        manager,
        'items.item.claimed.v1',
        { code, ownerUserId: user.userId, claimedAt: row.claimed_at.toISOString() },
        { aggregateId: code, version: row.version },
      );
      return true;
    });
    if (!claimed) throw ALREADY_CLAIMED();
    if (user.created && user.passwordToken && user.loginToken) {
      return { response_code: 'NEW_USER_REGISTERED', password_token: user.passwordToken, login_token: user.loginToken };
    }
    return { response_code: 'ITEM_CLAIMED_SUCCESFULLY' };
  }
}
