import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import {
  INVITATION_VALID_DAYS,
  invitationTokenSchema,
  ITEM_PEOPLE_MAX,
  parseTagCode,
  ResponseCode,
  type ClaimResponse,
  type RpcRequest,
  type RpcResponse,
} from '@homing/contracts';
import { OutboxWriter, RPC_TIMEOUT_MS, RpcClient, RpcError, type Transaction } from '@homing/platform';
import { PeopleRepository, type InvitationRow, type LockedItem } from './people.repository';

const DAY_MS = 24 * 60 * 60_000;

const ITEM_NOT_FOUND = () => RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'Item not found.');
const OWNER_ONLY = () => RpcError.forbidden(ResponseCode.FORBIDDEN, 'Only the item’s owner can do this.');
const EXPIRED = () =>
  new RpcError({ status: 422, response_code: ResponseCode.INVITATION_EXPIRED, message: 'This invitation has expired, was used or was withdrawn. Ask for a new one.' });

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/**
 * The people of an item (ARCHITECTURE §12): its owner and co-owners, each with their own account, and the invitations
 * that add one or pass the item on. Every change of who they are is `items.item.people-changed.v1` with the whole set,
 * at the item's next version, so messaging and notifications project it and apply only what is newer.
 */
@Injectable()
export class PeopleService {
  constructor(
    private readonly people: PeopleRepository,
    private readonly outbox: OutboxWriter,
    private readonly rpc: RpcClient,
  ) {}

  /**
   * The owner invites an address to share the item or to take it over. At most ITEM_PEOPLE_MAX people and open
   * co-owner invitations together; one open invitation per address and kind, and one open transfer. The link's
   * token goes by e-mail only (`items.invitation.created.v1`, secrets stream); only its hash is kept.
   */
  async invite(request: RpcRequest<'items.rpc.invite'>, now = new Date()): Promise<RpcResponse<'items.rpc.invite'>> {
    const code = parseTagCode(request.code);
    if (!code) throw ITEM_NOT_FOUND();
    const email = request.email.toLowerCase();
    const token = randomBytes(16).toString('base64url');
    const invitationId = uuidv7();
    const expiresAt = new Date(now.getTime() + INVITATION_VALID_DAYS * DAY_MS);
    await this.people.transaction(async (transaction) => {
      const item = await this.personOf(transaction, code, request.userId);
      if (item.owner_user_id !== request.userId) throw OWNER_ONLY();
      const open = await this.people.openInvitations(code, now, transaction);
      if (open.some((invitation) => invitation.kind === request.kind && (request.kind === 'transfer' || invitation.email === email))) {
        throw RpcError.conflict(ResponseCode.ALREADY_INVITED, request.kind === 'transfer' ? 'A transfer of this item is already waiting to be accepted.' : 'This address is already invited.');
      }
      if (request.kind === 'co-owner') {
        const count = 1 + (await this.people.coOwners(code, transaction)).length + open.filter((invitation) => invitation.kind === 'co-owner').length;
        if (count >= ITEM_PEOPLE_MAX) throw RpcError.conflict(ResponseCode.TOO_MANY_PEOPLE, `An item is shared by at most ${ITEM_PEOPLE_MAX} people.`);
      }
      await this.people.insertInvitation(transaction, { id: invitationId, code, kind: request.kind, email, tokenHash: hashToken(token), invitedBy: request.userId, expiresAt });
      await this.outbox.record(
        transaction,
        'items.invitation.created.v1',
        { invitationId, code, kind: request.kind, email, token, inviterUserId: request.userId },
        { aggregateId: invitationId, version: 1 },
      );
    });
    return { invitationId, expiresAt: expiresAt.toISOString() };
  }

  async list(request: RpcRequest<'items.rpc.list-people'>, now = new Date()): Promise<RpcResponse<'items.rpc.list-people'>> {
    const code = parseTagCode(request.code);
    if (!code) throw ITEM_NOT_FOUND();
    return this.people.transaction(async (transaction) => {
      const item = await this.personOf(transaction, code, request.userId);
      const coOwners = await this.people.coOwners(code, transaction);
      const invitations = await this.people.openInvitations(code, now, transaction);
      return {
        people: [
          { userId: item.owner_user_id as string, role: 'owner' as const, addedAt: (item.claimed_at ?? now).toISOString() },
          ...coOwners.map((person) => ({ userId: person.user_id, role: 'co-owner' as const, addedAt: person.added_at.toISOString() })),
        ],
        invitations: invitations.map((invitation) => ({ id: invitation.id, email: invitation.email, kind: invitation.kind, expiresAt: invitation.expires_at.toISOString() })),
      };
    });
  }

  /**
   * The owner removes a co-owner or withdraws an open invitation (by its id); a co-owner removes themselves. The
   * owner cannot remove themselves (they hand the item over or delete it).
   */
  async remove(request: RpcRequest<'items.rpc.remove-person'>): Promise<void> {
    const code = parseTagCode(request.code);
    if (!code) throw ITEM_NOT_FOUND();
    await this.people.transaction(async (transaction) => {
      const item = await this.personOf(transaction, code, request.userId);
      const isOwner = item.owner_user_id === request.userId;
      if (request.personId !== request.userId && !isOwner) throw OWNER_ONLY();
      if (isOwner && (await this.people.cancelInvitation(transaction, code, request.personId))) return;
      if (request.personId === item.owner_user_id) throw OWNER_ONLY();
      if (!(await this.people.removeCoOwner(transaction, code, request.personId))) throw RpcError.notFound(ResponseCode.NOT_FOUND, 'No such person of this item.');
      await this.peopleChanged(transaction, code, item.owner_user_id as string, await this.people.bumpVersion(transaction, code));
    });
  }

  async invitation(token: string, now = new Date()): Promise<RpcResponse<'items.rpc.get-invitation'>> {
    const invitation = await this.openInvitation(token, now);
    const itemName = await this.people.itemName(invitation.item_code);
    return { kind: invitation.kind, itemName, email: invitation.email, expiresAt: invitation.expires_at.toISOString() };
  }

  /**
   * Accepts an invitation, once: for the logged-in user, or for the account of the invited address, which identity
   * makes if there is none (as activation does: the answer then carries its set-password and login tokens). A
   * co-owner invitation adds them; a transfer makes them the owner (`items.item.transferred.v1`): the old owner and
   * the co-owners lose the item, and messaging clears its conversations.
   */
  async accept(request: RpcRequest<'items.rpc.accept-invitation'>, now = new Date()): Promise<RpcResponse<'items.rpc.accept-invitation'>> {
    // A link that is not open is refused here, before any lock or account.
    const invitation = await this.openInvitation(request.token, now);
    let claim: ClaimResponse = { response_code: 'ITEM_CLAIMED_SUCCESFULLY' };
    const person = await this.people.transaction(async (transaction) => {
      // The item first, then its invitation: the order of every path that changes an item's invitations (a withdrawal,
      // a transfer, a deletion lock the item, then its invitations). The other order deadlocked with them.
      const item = await this.people.lockItem(transaction, invitation.item_code);
      // Again under the lock: a concurrent accept of the same link finds it used, a withdrawal or deletion done.
      const locked = await this.people.findInvitationByToken(hashToken(request.token), transaction);
      if (!locked || !isOpen(locked, now) || locked.item_code !== invitation.item_code) throw EXPIRED();
      if (!item?.owner_user_id) throw EXPIRED();
      // Logged out: the invited address's account, made only now that the acceptance holds (made before the lock, a
      // link withdrawn meanwhile left an account nobody asked for). Asked under the item's lock, which the RPC's
      // timeout bounds; identity calls nothing of items back.
      let person = request.userId;
      if (!person) {
        const user = await this.rpc.request('identity.rpc.ensure-user', { email: locked.email, language: request.language ?? 'en' }, { timeoutMs: RPC_TIMEOUT_MS });
        person = user.userId;
        if (user.created && user.passwordToken && user.loginToken) claim = { response_code: 'NEW_USER_REGISTERED', password_token: user.passwordToken, login_token: user.loginToken };
      }
      await this.people.markAccepted(transaction, locked.id, person);
      if (item.owner_user_id === person) return person;
      if (locked.kind === 'co-owner') {
        await this.people.addCoOwner(transaction, item.code, person);
        await this.peopleChanged(transaction, item.code, item.owner_user_id, await this.people.bumpVersion(transaction, item.code));
        return person;
      }
      await this.transferred(transaction, item, person);
      return person;
    });
    return { code: invitation.item_code, userId: person, claim };
  }

  /**
   * An erased user leaves every item they co-owned (their own items are deleted by the erasure itself), and the
   * invitations they sent or accepted go.
   */
  async forgetUser(transaction: Transaction, userId: string): Promise<void> {
    for (const code of await this.people.removeUser(transaction, userId)) {
      const item = await this.people.lockItem(transaction, code);
      if (item?.owner_user_id) await this.peopleChanged(transaction, code, item.owner_user_id, await this.people.bumpVersion(transaction, code));
    }
    // After the items' locks, in the order an acceptance takes them (the item, then its invitation).
    await this.people.deleteInvitationsOf(transaction, userId);
  }

  private async transferred(transaction: Transaction, item: LockedItem, newOwnerUserId: string): Promise<void> {
    const previousOwnerUserId = item.owner_user_id as string;
    const version = await this.people.transfer(transaction, item.code, newOwnerUserId);
    await this.outbox.record(transaction, 'items.item.transferred.v1', { code: item.code, previousOwnerUserId, ownerUserId: newOwnerUserId }, { aggregateId: item.code, version });
    await this.peopleChanged(transaction, item.code, newOwnerUserId, version);
  }

  private async peopleChanged(transaction: Transaction, code: string, ownerUserId: string, version: number): Promise<void> {
    const coOwnerUserIds = (await this.people.coOwners(code, transaction)).map((person) => person.user_id);
    await this.outbox.record(transaction, 'items.item.people-changed.v1', { code, ownerUserId, coOwnerUserIds }, { aggregateId: code, version });
  }

  // The item locked, when the user is its owner or a co-owner; anyone else gets the same 404 as a missing item.
  private async personOf(transaction: Transaction, code: string, userId: string): Promise<LockedItem> {
    const item = await this.people.lockItem(transaction, code);
    if (!item?.owner_user_id) throw ITEM_NOT_FOUND();
    if (item.owner_user_id !== userId && !(await this.people.coOwners(code, transaction)).some((person) => person.user_id === userId)) throw ITEM_NOT_FOUND();
    return item;
  }

  private async openInvitation(token: string, now: Date): Promise<InvitationRow> {
    if (!invitationTokenSchema.safeParse(token).success) throw EXPIRED();
    const invitation = await this.people.findInvitationByToken(hashToken(token));
    if (!invitation || !isOpen(invitation, now)) throw EXPIRED();
    return invitation;
  }
}

function isOpen(invitation: InvitationRow, now: Date): boolean {
  return invitation.accepted_at === null && invitation.cancelled_at === null && invitation.expires_at.getTime() > now.getTime();
}
