import { Injectable } from '@nestjs/common';
import type { ItemNotificationSettings } from '@homing/contracts';
import type { ItemPeople } from './item-people.repository';
import { ItemRecipientsRepository } from './item-recipients.repository';
import { DEFAULT_ITEM_SETTINGS } from './item-settings.repository';

/** One person told of an item's news, and how they want to be told. */
export interface ItemRecipient extends ItemNotificationSettings {
  userId: string;
}

/** A recipient with the ids of their push subscriptions, oldest first (whether or not push is on for the item). */
export interface ItemRecipientWithSubscriptions extends ItemRecipient {
  subscriptionIds: string[];
}

/** Whether a person is still told of an item's news by e-mail (`ItemRecipientsService.emailStanding`). */
export type EmailStanding = 'told' | 'not-of-item' | 'email-off';

/**
 * Who is told of an item's news: its owner and every co-owner, as the projection says. Before items has said anything
 * of the item's people (an item from before co-owners, or its first event not consumed yet), the owner the event
 * names. A deleted item (no owner left in its row) has nobody to tell.
 */
export function peopleToTell(people: ItemPeople | null, eventOwnerUserId: string): string[] {
  if (!people) return [eventOwnerUserId];
  if (!people.ownerUserId) return [];
  return [...new Set([people.ownerUserId, ...people.coOwnerUserIds])];
}

/**
 * The people of an item to tell of its news, each with their own settings (both on unless they turned one off), read in
 * one statement (`ItemRecipientsRepository`).
 */
@Injectable()
export class ItemRecipientsService {
  constructor(private readonly recipients: ItemRecipientsRepository) {}

  /** The people to tell, each with their settings and their push subscriptions, in one round trip. */
  async recipientsWithSubscriptionsOf(itemCode: string, eventOwnerUserId: string): Promise<ItemRecipientWithSubscriptions[]> {
    const { people, settings, subscriptions } = await this.recipients.read(itemCode, eventOwnerUserId, { withSubscriptions: true });
    return peopleToTell(people, eventOwnerUserId).map((userId) => ({ userId, ...(settings.get(userId) ?? DEFAULT_ITEM_SETTINGS), subscriptionIds: subscriptions.get(userId) ?? [] }));
  }

  /**
   * Whether a person is still told of the item's news by e-mail now, when a job about it is due (a delayed e-mail waits
   * up to OWNER_EMAIL_DELAY_MINUTES): `told`; `not-of-item` once they are no longer among its people (removed, the
   * item transferred or deleted); `email-off` once they turned e-mail off for it. Before items has said anything of the
   * item's people, the job's person is told, as the consumer that enqueued it decided.
   */
  async emailStanding(itemCode: string, userId: string): Promise<EmailStanding> {
    const { people, settings } = await this.recipients.read(itemCode, userId, { withSubscriptions: false });
    if (!peopleToTell(people, userId).includes(userId)) return 'not-of-item';
    return settings.get(userId)?.email === false ? 'email-off' : 'told';
  }
}
