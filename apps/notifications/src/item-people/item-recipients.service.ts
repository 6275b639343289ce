import { Injectable } from '@nestjs/common';
import type { ItemNotificationSettings } from '@homing/contracts';
import { ItemPeopleRepository, type ItemPeople } from './item-people.repository';
import { ItemSettingsRepository } from './item-settings.repository';

/** One person told of an item's news, and how they want to be told. */
export interface ItemRecipient extends ItemNotificationSettings {
  userId: string;
}

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

/** The people of an item to tell of its news, each with their own settings (both on unless they turned one off). */
@Injectable()
export class ItemRecipientsService {
  constructor(
    private readonly people: ItemPeopleRepository,
    private readonly settings: ItemSettingsRepository,
  ) {}

  async recipientsOf(itemCode: string, eventOwnerUserId: string): Promise<ItemRecipient[]> {
    const userIds = peopleToTell(await this.people.peopleOf(itemCode), eventOwnerUserId);
    const settings = await this.settings.settingsOf(itemCode, userIds);
    return userIds.map((userId) => ({ userId, ...(settings.get(userId) as ItemNotificationSettings) }));
  }
}
