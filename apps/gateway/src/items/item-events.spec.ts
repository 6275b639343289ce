import { fakeNats, settle } from '../testing/fake-nats';
import { ItemEvents } from './item-events';
import { PublicItemCache, type PublicItemRecord } from './public-item-cache';

const CODE = 'ABCDEFGHJKMNPQRS';
const record: PublicItemRecord = { item: { code: 'ABCD-EFGH-JKMN-PQRS', name: 'Keys', claimed_at: null, activated: true, is_owner: false, lost: false }, ownerUserId: null };

describe('ItemEvents', () => {
  let nats: ReturnType<typeof fakeNats>;
  let events: ItemEvents;
  let cache: PublicItemCache;
  const load = jest.fn(async () => record);
  const scan = () => cache.get(CODE, null, load);

  beforeEach(async () => {
    load.mockClear();
    nats = fakeNats();
    cache = new PublicItemCache();
    events = new ItemEvents(nats.client, cache);
    events.onModuleInit();
    await settle();
  });

  afterEach(() => events.onApplicationShutdown());

  it('keeps scans once subscribed and forgets an item its event names', async () => {
    await scan();
    await scan();
    expect(load).toHaveBeenCalledTimes(1);
    nats.publish('items.item.updated.v1', { code: CODE, name: 'House keys', rewardCents: null });
    await scan();
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('forgets every item on an event it cannot read (which item it changed is unknown), and keeps scans again after', async () => {
    await scan();
    await scan();
    expect(load).toHaveBeenCalledTimes(1);
    // A payload of another contract version: the code may be there, but nothing read from it can be trusted.
    nats.publish('items.item.updated.v1', { code: 42, name: 'House keys' });
    await scan();
    expect(load).toHaveBeenCalledTimes(2);
    await settle();
    await scan();
    await scan();
    expect(load).toHaveBeenCalledTimes(3);
  });

  it('empties the cache on a failed subscription and on a slow consumer, and keeps scans again once subscribed', async () => {
    await scan();
    nats.failSubscription('items.item.deleted.v1');
    await scan();
    await scan();
    expect(load).toHaveBeenCalledTimes(3);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await scan();
    await scan();
    expect(load).toHaveBeenCalledTimes(4);
    nats.status({ type: 'slowConsumer', sub: {} as never, pending: 70_000 });
    await settle();
    await scan();
    expect(load).toHaveBeenCalledTimes(5);
  });
});
