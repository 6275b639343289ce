import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Client } from 'pg';
import type { DomainEvent, PublicItem } from '@homing/contracts';
import {
  deleteNamespaceStreams,
  dropSchemas,
  ensureDatabase,
  expectEventually,
  freePort,
  isolatedName,
  runServiceCommand,
  ServiceProcess,
  testInfra,
  waitForEvent,
} from '@homing/testing';

// The first event path end to end, with the built services as separate processes: items writes the item and
// its event in one transaction, the relay publishes it, messaging projects it exactly once.
describe('item owners projection (items → JetStream → messaging)', () => {
  const infra = testInfra();
  const namespace = isolatedName();
  const schemas = { items: `items_${namespace}`, messaging: `messaging_${namespace}` };
  const shared = { DATABASE_URL: infra.databaseUrl, NATS_URL: infra.natsUrl, NATS_NAMESPACE: namespace, NODE_ENV: 'test' };
  const envOf = (app: keyof typeof schemas) => ({ ...shared, DATABASE_SCHEMA: schemas[app] });

  let nc: NatsConnection;
  let db: Client;
  let items: ServiceProcess;
  let messaging: ServiceProcess;
  let created: { item: PublicItem; event: DomainEvent<'items.item.created.v1'> };

  const projected = async (code: string) => {
    const { rows } = await db.query(`SELECT owner_user_id, name, version FROM "${schemas.messaging}".item_owners WHERE item_code = $1`, [code]);
    return rows[0] as { owner_user_id: string | null; name: string | null; version: number } | undefined;
  };

  /** Publishes an event as items' relay would, and waits until messaging's projection has taken it. */
  const deliver = async (subject: string, event: object) => {
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    const ack = await js.publish(`${namespace}.${subject}`, JSON.stringify({ ...event, id: randomUUID(), subject }));
    await expectEventually(async () => {
      const info = await jsm.consumers.info(ack.stream, 'messaging__item-owners');
      expect(info.ack_floor.stream_seq).toBeGreaterThanOrEqual(ack.seq);
    });
  };

  const ownerOf = async (code: string) => {
    const { rows } = await db.query(`SELECT owner_user_id FROM "${schemas.messaging}".item_owners WHERE item_code = $1`, [code]);
    return rows[0]?.owner_user_id as string | undefined;
  };

  beforeAll(async () => {
    await ensureDatabase(infra.databaseUrl);
    await runServiceCommand('items', ['migrate'], envOf('items'));
    await runServiceCommand('messaging', ['migrate'], envOf('messaging'));
    nc = await connect({ servers: infra.natsUrl });
    db = new Client({ connectionString: infra.databaseUrl });
    await db.connect();
    items = new ServiceProcess('items', await freePort(), envOf('items'));
    messaging = new ServiceProcess('messaging', await freePort(), envOf('messaging'));
  });

  afterAll(async () => {
    await Promise.all([items?.stop(), messaging?.stop()]);
    await deleteNamespaceStreams(nc, namespace);
    await nc.drain();
    await db.end();
    await dropSchemas(infra.databaseUrl, Object.values(schemas));
  });

  it('brings an item created while messaging is down into the projection once messaging starts', async () => {
    await items.start();
    const ownerUserId = randomUUID();
    const published = waitForEvent(nc, namespace, 'items.item.created.v1', (event) => event.data.ownerUserId === ownerUserId);
    const reply = await nc.request(`${namespace}.items.rpc.create`, JSON.stringify({ name: 'Blue bike', ownerUserId }), { timeout: 5000 });
    const item = reply.json<PublicItem>();
    expect(item).toMatchObject({ name: 'Blue bike', activated: true, is_owner: true, user_id: ownerUserId });
    const event = await published;
    expect(event).toMatchObject({ subject: 'items.item.created.v1', producer: 'items', data: { ownerUserId } });
    created = { item, event };

    await messaging.start();
    await expectEventually(async () => expect(await ownerOf(event.data.code)).toBe(ownerUserId));
  });

  it('does not apply a replayed event twice', async () => {
    const { event } = created;
    // Someone (a later event, an operator) changed the row since; a replay of the old event must not undo it.
    const laterOwner = randomUUID();
    await db.query(`UPDATE "${schemas.messaging}".item_owners SET owner_user_id = $1 WHERE item_code = $2`, [laterOwner, event.data.code]);

    // Republished under another message id, so JetStream's de-duplication does not catch it: only the consumer can.
    const js = jetstream(nc);
    const ack = await js.publish(`${namespace}.items.item.created.v1`, JSON.stringify(event), { msgID: `replay-${event.id}` });
    expect(ack.duplicate).toBe(false);

    const jsm = await jetstreamManager(nc);
    await expectEventually(async () => {
      const info = await jsm.consumers.info(ack.stream, 'messaging__item-owners');
      expect(info.ack_floor.stream_seq).toBeGreaterThanOrEqual(ack.seq);
    });
    expect(await ownerOf(event.data.code)).toBe(laterOwner);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM "${schemas.messaging}".processed_events WHERE event_id = $1`, [event.id]);
    expect(rows[0].n).toBe(1);
  });

  it('applies an event only if it is newer than the row, so a late event never undoes a later change', async () => {
    const { event } = created;
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    const send = async (subject: string, body: object) => {
      const ack = await js.publish(`${namespace}.${subject}`, JSON.stringify({ ...event, id: randomUUID(), subject, ...body }));
      await expectEventually(async () => {
        const info = await jsm.consumers.info(ack.stream, 'messaging__item-owners');
        expect(info.ack_floor.stream_seq).toBeGreaterThanOrEqual(ack.seq);
      });
    };
    const claimedBy = randomUUID();
    await send('items.item.claimed.v1', { version: 5, data: { ...event.data, ownerUserId: claimedBy } });
    expect(await ownerOf(event.data.code)).toBe(claimedBy);
    // Version 4 happened before version 5 but arrives after it: ignored.
    await send('items.item.claimed.v1', { version: 4, data: { ...event.data, ownerUserId: randomUUID() } });
    expect(await ownerOf(event.data.code)).toBe(claimedBy);
    // A deletion, then a late claim: the item stays deleted, and its tombstone ties no one to it (no owner, name or
    // claim time), not even the late claim's owner.
    await send('items.item.deleted.v1', { version: 6, data: { code: event.data.code } });
    await send('items.item.claimed.v1', { version: 5, data: { ...event.data, ownerUserId: randomUUID() } });
    const { rows } = await db.query(`SELECT deleted_at, version, owner_user_id, name, claimed_at FROM "${schemas.messaging}".item_owners WHERE item_code = $1`, [event.data.code]);
    expect(rows).toEqual([{ deleted_at: expect.any(Date), version: 6, owner_user_id: null, name: null, claimed_at: null }]);
  });

  it('keeps the item’s name from its creation and follows a rename', async () => {
    const ownerUserId = randomUUID();
    const reply = await nc.request(`${namespace}.items.rpc.create`, JSON.stringify({ name: 'Red scarf', ownerUserId }), { timeout: 5000 });
    const code = reply.json<PublicItem>().code.replace(/-/g, '');
    await expectEventually(async () => expect(await projected(code)).toEqual({ owner_user_id: ownerUserId, name: 'Red scarf', version: 1 }));

    const renamed = waitForEvent(nc, namespace, 'items.item.updated.v1', (event) => event.data.code === code);
    await nc.request(`${namespace}.items.rpc.update`, JSON.stringify({ code, ownerUserId, name: 'Blue scarf' }), { timeout: 5000 });
    expect((await renamed).version).toBe(2);
    await expectEventually(async () => expect(await projected(code)).toEqual({ owner_user_id: ownerUserId, name: 'Blue scarf', version: 2 }));
  });

  it('keeps the newest name when an older rename arrives late, and the owner when a rename overtakes the creation', async () => {
    const { event } = created;
    const code = `${event.data.code.slice(0, 12)}ZZZZ`;
    const ownerUserId = randomUUID();
    const renamed = (version: number, name: string) => ({ ...event, aggregateId: code, version, data: { code, name, rewardCents: null } });
    await deliver('items.item.updated.v1', renamed(3, 'Umbrella (black)'));
    expect(await projected(code)).toEqual({ owner_user_id: null, name: 'Umbrella (black)', version: 3 });
    // Version 2 was renamed before version 3, but arrives after it: ignored.
    await deliver('items.item.updated.v1', renamed(2, 'Umbrella'));
    expect(await projected(code)).toMatchObject({ name: 'Umbrella (black)', version: 3 });
    // The creation (version 1) comes last: its owner is the item's for good, its name is older than the rename.
    await deliver('items.item.created.v1', { ...event, aggregateId: code, version: 1, data: { ...event.data, code, ownerUserId, name: 'Brolly' } });
    expect(await projected(code)).toEqual({ owner_user_id: ownerUserId, name: 'Umbrella (black)', version: 3 });
  });

  it('moves malformed events to the dead-letter subject and keeps consuming', async () => {
    const js = jetstream(nc);
    const subject = `${namespace}.items.item.created.v1`;
    const deadLetters = nc.subscribe(`${namespace}.deadletter.messaging__item-owners`, { max: 2, timeout: 10_000 });
    await js.publish(subject, 'not json at all', { msgID: randomUUID() });
    await js.publish(subject, JSON.stringify({ ...created.event, id: randomUUID(), data: { code: 'X' } }), { msgID: randomUUID() });
    const received: string[] = [];
    for await (const msg of deadLetters) received.push(msg.string());
    expect(received).toEqual(['not json at all', expect.stringContaining('"code":"X"')]);

    // The consumer is not stuck behind them.
    const ownerUserId = randomUUID();
    const reply = await nc.request(`${namespace}.items.rpc.create`, JSON.stringify({ name: 'Keys', ownerUserId }), { timeout: 5000 });
    const code = reply.json<PublicItem>().code.replace(/-/g, '');
    await expectEventually(async () => expect(await ownerOf(code)).toBe(ownerUserId));
  });

  it('replays dead letters to their consumer with the replay-dead-letters command', async () => {
    const output = await runServiceCommand('messaging', ['replay-dead-letters', '--consumer', 'messaging__item-owners'], envOf('messaging'));
    expect(output).toContain('messaging: replayed 2 dead letter(s); 0 not replayable');
    // Still malformed, so the consumer dead-letters them again: nothing is lost either way.
    const jsm = await jetstreamManager(nc);
    const deadLetters = `${namespace}.deadletter.messaging__item-owners`;
    await expectEventually(async () => {
      const info = await jsm.streams.info(`${namespace.toUpperCase()}_HOMING_DEAD_LETTERS`, { subjects_filter: deadLetters });
      expect(info.state.subjects?.[deadLetters]).toBe(2);
    });
  });

  it('resumes from its durable position after a restart, with items created meanwhile', async () => {
    expect(await messaging.stop('SIGTERM')).toBe(0);
    const ownerUserId = randomUUID();
    const reply = await nc.request(`${namespace}.items.rpc.create`, JSON.stringify({ name: 'Umbrella', ownerUserId }), { timeout: 5000 });
    const code = reply.json<PublicItem>().code.replace(/-/g, '');
    await messaging.start();
    await expectEventually(async () => expect(await ownerOf(code)).toBe(ownerUserId));
  });

  it('shuts down cleanly on SIGTERM', async () => {
    expect(await messaging.stop('SIGTERM')).toBe(0);
    expect(await items.stop('SIGTERM')).toBe(0);
  });
});
