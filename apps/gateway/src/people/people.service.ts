import { Injectable } from '@nestjs/common';
import { formatTagCode, parseTagCode, ResponseCode, RpcMap, type Invitation, type InvitationAccepted, type InvitationKind, type InvitationSent, type ItemNotificationSettings, type ItemPeople, type UserLanguage } from '@homing/contracts';
import { RpcClient, RpcError } from '@homing/platform';
import { ApiError } from '../http/http-error';
import { PublicItemCache } from '../items/public-item-cache';

// What `items.rpc.remove-person` takes as a person's (or an invitation's) id.
const PERSON_ID = RpcMap['items.rpc.remove-person'].request.shape.personId;

@Injectable()
export class PeopleService {
  constructor(
    private readonly rpc: RpcClient,
    private readonly publicItems: PublicItemCache,
  ) {}

  async invite(code: string, userId: string, email: string, kind: InvitationKind): Promise<InvitationSent> {
    const sent = await this.rpc.request('items.rpc.invite', { code, userId, email, kind });
    return { invitation_id: sent.invitationId, expires_at: sent.expiresAt };
  }

  /** The people with their addresses (identity's), shown only to people of the item (items answers 404 to anyone else). */
  async list(code: string, userId: string): Promise<ItemPeople> {
    const { people, invitations } = await this.rpc.request('items.rpc.list-people', { code, userId });
    const emails = await Promise.all(people.map((person) => this.emailOf(person.userId)));
    return {
      people: people.map((person, index) => ({ id: person.userId, email: emails[index], role: person.role, added_at: person.addedAt, is_you: person.userId === userId })),
      invitations: invitations.map((invitation) => ({ id: invitation.id, email: invitation.email, kind: invitation.kind, expires_at: invitation.expiresAt })),
    };
  }

  remove(code: string, userId: string, personId: string): Promise<void> {
    // Ids are the RPC's UUIDs: anything else (dashes and hex of another shape too) names nobody, the same 404.
    if (!PERSON_ID.safeParse(personId).success) throw new ApiError(404, ResponseCode.NOT_FOUND, 'No such person of this item.');
    return this.publicItems.changing(code, this.rpc.request('items.rpc.remove-person', { code, userId, personId })).then(() => undefined);
  }

  async cancelTransfer(code: string, userId: string): Promise<void> {
    const { people, invitations } = await this.rpc.request('items.rpc.list-people', { code, userId });
    if (people.find((person) => person.role === 'owner')?.userId !== userId) throw new ApiError(403, ResponseCode.FORBIDDEN, 'Only the item’s owner can do this.');
    const waiting = invitations.find((invitation) => invitation.kind === 'transfer');
    if (!waiting) throw new ApiError(404, ResponseCode.NOT_FOUND, 'No hand-over of this item is waiting.');
    await this.rpc.request('items.rpc.remove-person', { code, userId, personId: waiting.id });
  }

  async settings(code: string, userId: string): Promise<ItemNotificationSettings> {
    const item = await this.rpc.request('items.rpc.get-owned', { code, ownerUserId: userId });
    return this.rpc.request('notifications.rpc.get-item-settings', { code: parseTagCode(item.code) ?? item.code, userId });
  }

  async changeSettings(code: string, userId: string, changes: { email?: boolean; push?: boolean }): Promise<ItemNotificationSettings> {
    const item = await this.rpc.request('items.rpc.get-owned', { code, ownerUserId: userId });
    return this.rpc.request('notifications.rpc.set-item-settings', { code: parseTagCode(item.code) ?? item.code, userId, ...changes });
  }

  async invitation(token: string): Promise<Invitation> {
    const found = await this.rpc.request('items.rpc.get-invitation', { token });
    return { kind: found.kind, item_name: found.itemName, email: found.email, expires_at: found.expiresAt };
  }

  async accept(token: string, userId: string | null, language: UserLanguage): Promise<InvitationAccepted> {
    const accepted = await this.rpc.request('items.rpc.accept-invitation', { token, userId, language });
    this.publicItems.invalidate(accepted.code);
    return { code: formatTagCode(accepted.code), ...accepted.claim };
  }

  // An address is shown while identity has it; a person whose account is gone meanwhile shows none.
  private async emailOf(userId: string): Promise<string | null> {
    try {
      return (await this.rpc.request('identity.rpc.get-user', { userId })).email;
    } catch (error) {
      if (error instanceof RpcError && error.body.status === 404) return null;
      throw error;
    }
  }
}
