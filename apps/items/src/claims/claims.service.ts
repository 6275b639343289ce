import { Injectable } from '@nestjs/common';
import { parseTagCode, ResponseCode, type ClaimResponse, type UserLanguage } from '@homing/contracts';
import { OutboxWriter, RPC_TIMEOUT_MS, RpcClient, RpcError } from '@homing/platform';
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
   * Activates a tag for the user with this address (ARCHITECTURE §7): one transaction locks the tag's row, asks
   * identity to ensure the user, claims the tag with a conditional update and records `items.item.claimed.v1`. If
   * identity cannot answer, nothing here has changed; a concurrent claim of the same tag answers ALREADY_CLAIMED.
   */
  async claim(input: string, email: string, language: UserLanguage): Promise<ClaimResponse> {
    const code = parseTagCode(input);
    if (!code) throw NOT_FOUND();
    const user = await this.claims.transaction(async (manager) => {
      // A wrong or used code creates no account and sends no welcome e-mail (docs/decisions.md), nor does losing a
      // race: the tag's row stays locked from this check to the update, so concurrent claims of one tag wait here and
      // then find it claimed without asking identity for anything. The lock is held across the RPC, bounded by its
      // timeout (RPC_TIMEOUT_MS, 2 s, under the 5 s statement timeout of a waiting claim). It cannot deadlock: it is
      // this transaction's only lock, every other path that locks an item takes that row first too (and an unclaimed
      // tag has no invitations or co-owners to lock after it), and ensure-user does not call back into items.
      const state = await this.claims.lockState(manager, code);
      if (state === 'unknown') throw NOT_FOUND();
      if (state === 'claimed') throw ALREADY_CLAIMED();
      const ensured = await this.rpc.request('identity.rpc.ensure-user', { email, language }, { timeoutMs: RPC_TIMEOUT_MS });
      const row = await this.claims.claimIfUnclaimed(manager, code, ensured.userId);
      if (!row) throw ALREADY_CLAIMED();
      await this.outbox.record(
        manager,
        'items.item.claimed.v1',
        { code, ownerUserId: ensured.userId, claimedAt: row.claimed_at.toISOString() },
        { aggregateId: code, version: row.version },
      );
      return ensured;
    });
    if (user.created && user.passwordToken && user.loginToken) {
      return { response_code: 'NEW_USER_REGISTERED', password_token: user.passwordToken, login_token: user.loginToken };
    }
    return { response_code: 'ITEM_CLAIMED_SUCCESFULLY' };
  }
}
