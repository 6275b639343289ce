import type { Database } from '@homing/platform';
import type { ItemPeopleRepository } from './item-people.repository';
import { ItemRecipientsService, peopleToTell } from './item-recipients.service';
import { ItemSettingsRepository } from './item-settings.repository';

const OWNER = '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10';
const CO_OWNER = '44444444-4444-4444-8444-444444444444';
const OTHER_CO_OWNER = '55555555-5555-4555-8555-555555555555';
const EVENT_OWNER = '66666666-6666-4666-8666-666666666666';

describe('who is told of an item’s news', () => {
  it('is the owner and every co-owner the projection names, each once', () => {
    expect(peopleToTell({ ownerUserId: OWNER, coOwnerUserIds: [CO_OWNER, OTHER_CO_OWNER, CO_OWNER] }, EVENT_OWNER)).toEqual([OWNER, CO_OWNER, OTHER_CO_OWNER]);
  });

  it('is the owner the event names while items has said nothing of the item’s people', () => {
    expect(peopleToTell(null, EVENT_OWNER)).toEqual([EVENT_OWNER]);
  });

  it('is nobody for a deleted item, whose row keeps no one', () => {
    expect(peopleToTell({ ownerUserId: null, coOwnerUserIds: [] }, EVENT_OWNER)).toEqual([]);
  });

  it('is the people with their own settings, both on for whoever has not chosen', async () => {
    const people = { peopleOf: jest.fn(async () => ({ ownerUserId: OWNER, coOwnerUserIds: [CO_OWNER, OTHER_CO_OWNER] })) };
    const database = { rows: jest.fn(async () => [{ user_id: CO_OWNER, email: false, push: true }]) };
    const service = new ItemRecipientsService(people as unknown as ItemPeopleRepository, new ItemSettingsRepository(database as unknown as Database));
    expect(await service.recipientsOf('ABCDEFGHJKMNPQRS', EVENT_OWNER)).toEqual([
      { userId: OWNER, email: true, push: true },
      { userId: CO_OWNER, email: false, push: true },
      { userId: OTHER_CO_OWNER, email: true, push: true },
    ]);
    expect(people.peopleOf).toHaveBeenCalledWith('ABCDEFGHJKMNPQRS');
  });
});

describe('a person’s settings for an item', () => {
  it('are both on when they have no row, without asking the database for nobody', async () => {
    const database = { rows: jest.fn(async () => []) };
    const settings = new ItemSettingsRepository(database as unknown as Database);
    expect(await settings.settingsOf('ABCDEFGHJKMNPQRS', [OWNER])).toEqual(new Map([[OWNER, { email: true, push: true }]]));
    expect(await settings.settingsOf('ABCDEFGHJKMNPQRS', [])).toEqual(new Map());
    expect(database.rows).toHaveBeenCalledTimes(1);
  });
});
