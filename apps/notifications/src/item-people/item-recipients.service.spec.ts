import type { Database } from '@homing/platform';
import { ItemRecipientsRepository } from './item-recipients.repository';
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

  /** A database answering the one read of the item's people as PostgreSQL would (json columns parsed). */
  const answering = (row: object) => {
    const database = { one: jest.fn(async () => row) };
    return { database, service: new ItemRecipientsService(new ItemRecipientsRepository(database as unknown as Database)) };
  };
  const projected = { known: true, owner_user_id: OWNER, co_owner_user_ids: [CO_OWNER, OTHER_CO_OWNER] };

  it('is the people with their own settings, both on for whoever has not chosen, in one read', async () => {
    const { database, service } = answering({ ...projected, settings: [[CO_OWNER, false, true], [EVENT_OWNER, false, false]], subscriptions: [] });
    expect(await service.recipientsWithSubscriptionsOf('ABCDEFGHJKMNPQRS', EVENT_OWNER)).toEqual([
      { userId: OWNER, email: true, push: true, subscriptionIds: [] },
      { userId: CO_OWNER, email: false, push: true, subscriptionIds: [] },
      { userId: OTHER_CO_OWNER, email: true, push: true, subscriptionIds: [] },
    ]);
    expect(database.one).toHaveBeenCalledTimes(1);
    expect(database.one).toHaveBeenCalledWith(expect.objectContaining({ text: expect.stringContaining('item_people') }), ['ABCDEFGHJKMNPQRS', EVENT_OWNER, true]);
  });

  it('comes with each one’s push subscriptions in order when asked, in the same read', async () => {
    const { database, service } = answering({ ...projected, settings: [], subscriptions: [[OWNER, 'phone'], [CO_OWNER, 'tablet'], [OWNER, 'laptop']] });
    expect(await service.recipientsWithSubscriptionsOf('ABCDEFGHJKMNPQRS', EVENT_OWNER)).toEqual([
      { userId: OWNER, email: true, push: true, subscriptionIds: ['phone', 'laptop'] },
      { userId: CO_OWNER, email: true, push: true, subscriptionIds: ['tablet'] },
      { userId: OTHER_CO_OWNER, email: true, push: true, subscriptionIds: [] },
    ]);
    expect(database.one).toHaveBeenCalledWith(expect.anything(), ['ABCDEFGHJKMNPQRS', EVENT_OWNER, true]);
  });

  it('is the event’s owner while items has said nothing, and nobody once the item is deleted', async () => {
    const unknown = answering({ known: false, owner_user_id: null, co_owner_user_ids: null, settings: [], subscriptions: [] });
    expect(await unknown.service.recipientsWithSubscriptionsOf('ABCDEFGHJKMNPQRS', EVENT_OWNER)).toEqual([{ userId: EVENT_OWNER, email: true, push: true, subscriptionIds: [] }]);
    const deleted = answering({ known: true, owner_user_id: null, co_owner_user_ids: [], settings: [], subscriptions: [] });
    expect(await deleted.service.recipientsWithSubscriptionsOf('ABCDEFGHJKMNPQRS', EVENT_OWNER)).toEqual([]);
  });

  it('tells a person by e-mail while they are of the item and have not turned it off', async () => {
    expect(await answering({ ...projected, settings: [], subscriptions: [] }).service.emailStanding('ABCDEFGHJKMNPQRS', CO_OWNER)).toBe('told');
    expect(await answering({ ...projected, settings: [[CO_OWNER, false, true]], subscriptions: [] }).service.emailStanding('ABCDEFGHJKMNPQRS', CO_OWNER)).toBe('email-off');
    expect(await answering({ ...projected, settings: [], subscriptions: [] }).service.emailStanding('ABCDEFGHJKMNPQRS', EVENT_OWNER)).toBe('not-of-item');
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
