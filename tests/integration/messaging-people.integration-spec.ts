import { randomInt, randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Client } from 'pg';
import { RPC_ERROR_HEADER, type CreateMessageResponse, type DomainEvent, type EventSubject, type Message, type RpcErrorBody } from '@homing/contracts';
import { deleteNamespaceStreams, dropSchemas, ensureDatabase, expectEventually, freePort, isolatedName, runServiceCommand, ServiceProcess, testInfra } from '@homing/testing';

// The people of an item in messaging, with the built service as its own process: items' people-changed and
// transferred events (published here as items' relay would) reach the projection and the thread; co-owners are owners
// to the thread, except for a reset; a transfer clears the item's conversations. Notifications' delivery events
// (published as its relay would) stamp the receipts.
describe('co-owners, transfers and receipts in messaging (items, notifications → JetStream → messaging)', () => {
  const infra = testInfra();
  const namespace = isolatedName();
  const schema = `messaging_${namespace}`;
  const env = { DATABASE_URL: infra.databaseUrl, DATABASE_SCHEMA: schema, NATS_URL: infra.natsUrl, NATS_NAMESPACE: namespace, NODE_ENV: 'test', LOG_LEVEL: 'warn' };
  const consumerOf: Partial<Record<EventSubject, string>> = {
    'items.item.created.v1': 'messaging__item-owners',
    'items.item.updated.v1': 'messaging__item-owners',
    'items.item.people-changed.v1': 'messaging__item-owners',
    'items.item.deleted.v1': 'messaging__item-owners',
    'items.item.transferred.v1': 'messaging__item-transfers',
    'identity.user.deleted.v1': 'messaging__user-erasure',
    'notifications.message.delivered.v1': 'messaging__receipts',
  };

  let nc: NatsConnection;
  let db: Client;
  let messaging: ServiceProcess;

  const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  const newCode = () => Array.from({ length: 16 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');

  /** Publishes an event as its producer's relay would, and waits until its messaging consumer has taken it. */
  const deliver = async <S extends EventSubject>(subject: S, data: DomainEvent<S>['data'], envelope: { aggregateId: string; version: number; occurredAt?: Date; id?: string }) => {
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    const event = {
      id: envelope.id ?? randomUUID(),
      subject,
      occurredAt: (envelope.occurredAt ?? new Date()).toISOString(),
      correlationId: 'messaging-people-test',
      causationId: null,
      producer: subject.split('.')[0],
      aggregateId: envelope.aggregateId,
      version: envelope.version,
      data,
    };
    const ack = await js.publish(`${namespace}.${subject}`, JSON.stringify(event));
    await expectEventually(async () => {
      const info = await jsm.consumers.info(ack.stream, consumerOf[subject] as string);
      expect(info.ack_floor.stream_seq).toBeGreaterThanOrEqual(ack.seq);
    });
  };

  const people = (code: string, version: number, ownerUserId: string, coOwnerUserIds: string[]) =>
    deliver('items.item.people-changed.v1', { code, ownerUserId, coOwnerUserIds }, { aggregateId: code, version });
  const createItem = async (code: string, ownerUserId: string) =>
    deliver('items.item.created.v1', { code, ownerUserId, name: 'Green backpack', claimedAt: new Date().toISOString() }, { aggregateId: code, version: 1 });

  /** A messaging RPC as the gateway or notifications call it: the answer, or the error reply's body. */
  const rpc = async <T>(verb: string, request: object): Promise<{ ok: T } | { error: RpcErrorBody }> => {
    const reply = await nc.request(`${namespace}.messaging.rpc.${verb}`, JSON.stringify(request), { timeout: 5000 });
    return reply.headers?.get(RPC_ERROR_HEADER) ? { error: reply.json<RpcErrorBody>() } : { ok: reply.json<T>() };
  };
  const ok = <T>(answer: { ok: T } | { error: RpcErrorBody }): T => {
    if ('error' in answer) throw new Error(`RPC refused: ${JSON.stringify(answer.error)}`);
    return answer.ok;
  };

  const projected = async (code: string) => {
    const { rows } = await db.query(`SELECT owner_user_id, co_owner_user_ids, version, claimed_at IS NOT NULL AS claimed FROM "${schema}".item_owners WHERE item_code = $1`, [code]);
    return rows[0] as { owner_user_id: string | null; co_owner_user_ids: string[]; version: number; claimed: boolean } | undefined;
  };
  const conversationsOf = async (code: string) =>
    (await db.query<{ id: string }>(`SELECT id FROM "${schema}".conversations WHERE item_code = $1 ORDER BY created_at`, [code])).rows.map((row) => row.id);
  const finderWrites = async (code: string, content = 'I found your backpack at the station') =>
    ok(await rpc<CreateMessageResponse>('post-message', { code, content, viewerUserId: null })).finder_token as string;

  beforeAll(async () => {
    await ensureDatabase(infra.databaseUrl);
    await runServiceCommand('messaging', ['migrate'], env);
    nc = await connect({ servers: infra.natsUrl });
    db = new Client({ connectionString: infra.databaseUrl });
    await db.connect();
    messaging = new ServiceProcess('messaging', await freePort(), env);
    await messaging.start();
  });

  afterAll(async () => {
    await messaging?.stop();
    await deleteNamespaceStreams(nc, namespace);
    await nc.drain();
    await db.end();
    await dropSchemas(infra.databaseUrl, [schema]);
  });

  it('applies people-changed only when newer than the row, and keeps no one in a deleted item’s tombstone', async () => {
    const code = newCode();
    const owner = randomUUID();
    const [first, second] = [randomUUID(), randomUUID()];
    await createItem(code, owner);
    await people(code, 3, owner, [first, second]);
    expect(await projected(code)).toEqual({ owner_user_id: owner, co_owner_user_ids: [first, second], version: 3, claimed: true });
    // Version 2 happened before version 3 but arrives after it: ignored.
    await people(code, 2, owner, [first]);
    expect(await projected(code)).toMatchObject({ co_owner_user_ids: [first, second], version: 3 });
    await people(code, 4, owner, [second]);
    expect(await projected(code)).toMatchObject({ co_owner_user_ids: [second], version: 4 });

    await deliver('items.item.deleted.v1', { code }, { aggregateId: code, version: 5 });
    await people(code, 4, owner, [second]);
    expect(await projected(code)).toEqual({ owner_user_id: null, co_owner_user_ids: [], version: 5, claimed: false });
  });

  it('fills in the people of an item whose rename overtook them, and the claim time from a creation that comes last', async () => {
    const code = newCode();
    const [owner, coOwner] = [randomUUID(), randomUUID()];
    await deliver('items.item.updated.v1', { code, name: 'Umbrella', rewardCents: null }, { aggregateId: code, version: 3 });
    await people(code, 2, owner, [coOwner]);
    expect(await projected(code)).toEqual({ owner_user_id: owner, co_owner_user_ids: [coOwner], version: 3, claimed: false });
    await createItem(code, owner);
    expect(await projected(code)).toEqual({ owner_user_id: owner, co_owner_user_ids: [coOwner], version: 3, claimed: true });
  });

  it('lets a co-owner read and answer as the owner, but not reset, and treats them as a stranger once removed', async () => {
    const code = newCode();
    const [owner, coOwner] = [randomUUID(), randomUUID()];
    await createItem(code, owner);
    await people(code, 2, owner, [coOwner]);
    const finderToken = await finderWrites(code);

    const read = ok(await rpc<Message[]>('list-messages', { code, viewerUserId: coOwner }));
    expect(read).toEqual([expect.objectContaining({ author: 'finder', content: 'I found your backpack at the station', is_read: false })]);
    expect(ok(await rpc<{ count: number }>('unread-count', { code, ownerUserId: coOwner }))).toEqual({ count: 0 });
    expect(ok(await rpc<Record<string, boolean>>('found-items', { codes: [code], ownerUserId: coOwner }))).toEqual({ [code]: true });
    const reply = ok(await rpc<CreateMessageResponse>('post-message', { code, content: 'Thank you! I will pick it up.', viewerUserId: coOwner }));
    expect(reply.message).toMatchObject({ author: 'owner' });
    // The finder sees the owner's reply, whoever of the owners wrote it.
    const finderSees = ok(await rpc<Message[]>('list-messages', { code, viewerUserId: null, finderToken }));
    expect(finderSees.map((message) => message.author)).toEqual(['finder', 'owner']);
    expect(ok(await rpc('handover-code', { code, ownerUserId: coOwner }))).toMatchObject({ code: expect.stringMatching(/^\d{6}$/) });

    // By mail too: a reply address minted for the co-owner takes their mail as the owner's.
    const { token } = ok(await rpc<{ token: string | null }>('owner-reply-address', { conversationId: reply.message.conversation_id, userId: coOwner }));
    expect(token).toEqual(expect.any(String));
    const relayed = ok(await rpc<{ author: string }>('relay-message', { recipient: { kind: 'reply', token }, from: 'co-owner@example.test', content: 'Or tomorrow.', mailId: randomUUID() }));
    expect(relayed.author).toBe('owner');

    expect(await rpc('reset', { code, ownerUserId: coOwner })).toEqual({ error: expect.objectContaining({ status: 403, response_code: 'FORBIDDEN' }) });
    expect(await conversationsOf(code)).toHaveLength(1);

    await people(code, 3, owner, []);
    expect(await rpc('list-messages', { code, viewerUserId: coOwner })).toEqual({ error: expect.objectContaining({ status: 403, response_code: 'FORBIDDEN' }) });
    expect(await rpc('unread-count', { code, ownerUserId: coOwner })).toEqual({ error: expect.objectContaining({ status: 404, response_code: 'ITEM_NOT_FOUND' }) });
    expect(await rpc('reset', { code, ownerUserId: coOwner })).toEqual({ error: expect.objectContaining({ status: 404, response_code: 'ITEM_NOT_FOUND' }) });
    expect(ok(await rpc('found-items', { codes: [code], ownerUserId: coOwner }))).toEqual({ [code]: false });
    expect(await rpc('relay-message', { recipient: { kind: 'reply', token }, from: 'co-owner@example.test', content: 'Still there?', mailId: randomUUID() })).toEqual({
      error: expect.objectContaining({ status: 404 }),
    });
    expect(ok(await rpc('owner-reply-address', { conversationId: reply.message.conversation_id, userId: coOwner }))).toEqual({ token: null });
    // The owner's reset still works.
    expect(ok(await rpc('reset', { code, ownerUserId: owner }))).toEqual({});
    expect(await conversationsOf(code)).toEqual([]);
  });

  it('answers an owner’s mail its unread check and reply token in one call, and no token to one who owns nothing', async () => {
    const code = newCode();
    const [owner, coOwner, stranger] = [randomUUID(), randomUUID(), randomUUID()];
    await createItem(code, owner);
    await people(code, 2, owner, [coOwner]);
    await finderWrites(code);
    const [conversationId] = await conversationsOf(code);

    const forCoOwner = ok(await rpc<{ latestUnreadMessageId: number; replyToken: string }>('unread-since', { conversationId, messageId: 0, replyAddressFor: coOwner }));
    expect(forCoOwner).toEqual({ latestUnreadMessageId: expect.any(Number), replyToken: expect.stringMatching(/^[a-z2-7]{26}$/) });
    const relayed = ok(await rpc<{ author: string }>('relay-message', { recipient: { kind: 'reply', token: forCoOwner.replyToken }, from: 'co-owner@example.test', content: 'On my way.', mailId: randomUUID() }));
    expect(relayed.author).toBe('owner');
    expect(ok(await rpc('unread-since', { conversationId, messageId: 0, replyAddressFor: stranger }))).toEqual({ latestUnreadMessageId: forCoOwner.latestUnreadMessageId, replyToken: null });
    expect(ok(await rpc('unread-since', { conversationId, messageId: 0 }))).toEqual({ latestUnreadMessageId: forCoOwner.latestUnreadMessageId });
    // Read: nothing to mail, and no token minted for a mail that is not sent (nor for the stranger's above).
    ok(await rpc('list-messages', { code, viewerUserId: owner }));
    expect(ok(await rpc('unread-since', { conversationId, messageId: 0, replyAddressFor: owner }))).toEqual({ latestUnreadMessageId: null });
    const { rows: addresses } = await db.query(`SELECT recipient, user_id FROM "${schema}".reply_addresses WHERE conversation_id = $1`, [conversationId]);
    expect(addresses).toEqual([{ recipient: 'owner', user_id: coOwner }]);
  });

  it('stamps a finder’s messages delivered once, with one receipts event, however often notifications tell it', async () => {
    const code = newCode();
    await createItem(code, randomUUID());
    const first = ok(await rpc<CreateMessageResponse>('post-message', { code, content: 'I found your backpack', viewerUserId: null }));
    const second = ok(await rpc<CreateMessageResponse>('post-message', { code, content: 'It is at the station', viewerUserId: null, finderToken: first.finder_token }));
    const conversationId = second.message.conversation_id;
    const told = (messageId: number, id?: string) =>
      deliver('notifications.message.delivered.v1', { itemCode: code, conversationId, messageId }, { aggregateId: conversationId, version: messageId, id });

    // The second message's delivery stamps both (the earlier one of its author too), under one version.
    const eventId = randomUUID();
    await told(second.message.id, eventId);
    // The same event again (a redelivery), and the first message's own, late: nothing left to stamp.
    await told(second.message.id, eventId);
    await told(first.message.id);

    const { rows: stamped } = await db.query<{ id: string; delivered: boolean; receipt_version: string }>(
      `SELECT id, delivered_at IS NOT NULL AS delivered, receipt_version FROM "${schema}".messages WHERE conversation_id = $1 ORDER BY id`,
      [conversationId],
    );
    expect(stamped.map((row) => row.delivered)).toEqual([true, true]);
    expect(new Set(stamped.map((row) => row.receipt_version)).size).toBe(1);
    const { rows: receipts } = await db.query<{ envelope: { version: number; data: unknown } }>(
      `SELECT envelope FROM "${schema}".outbox WHERE subject = 'messaging.messages.receipts.v1' AND envelope->'data'->>'conversationId' = $1`,
      [conversationId],
    );
    expect(receipts.map((row) => row.envelope)).toEqual([
      expect.objectContaining({ version: Number(stamped[0].receipt_version), data: { itemCode: code, conversationId, messageIds: [first.message.id, second.message.id] } }),
    ]);
  });

  it('clears the item’s conversations when it passes to a new owner, who starts with an empty thread', async () => {
    const code = newCode();
    const [previousOwner, nextOwner, coOwner] = [randomUUID(), randomUUID(), randomUUID()];
    await createItem(code, previousOwner);
    await people(code, 2, previousOwner, [coOwner]);
    const finderToken = await finderWrites(code);
    await finderWrites(code, 'I have it too');
    const before = await conversationsOf(code);
    expect(before).toHaveLength(2);

    // Items publishes both in one transaction, at the same version.
    await people(code, 3, nextOwner, []);
    await deliver('items.item.transferred.v1', { code, previousOwnerUserId: previousOwner, ownerUserId: nextOwner }, { aggregateId: code, version: 3 });

    expect(await conversationsOf(code)).toEqual([]);
    expect(ok(await rpc<Message[]>('list-messages', { code, viewerUserId: nextOwner }))).toEqual([]);
    for (const formerOwner of [previousOwner, coOwner]) {
      expect(await rpc('list-messages', { code, viewerUserId: formerOwner })).toEqual({ error: expect.objectContaining({ status: 403, response_code: 'FORBIDDEN' }) });
    }
    // The old finder's token opens nothing any more.
    expect(await rpc('list-messages', { code, viewerUserId: null, finderToken })).toEqual({ error: expect.objectContaining({ status: 403 }) });
    const { rows: cleared } = await db.query(`SELECT envelope FROM "${schema}".outbox WHERE subject = 'messaging.conversation.cleared.v1' AND envelope->>'aggregateId' = $1`, [code]);
    expect(cleared.map((row) => row.envelope.data)).toEqual([{ itemCode: code, ownerUserId: previousOwner }]);
    const { rows: erased } = await db.query(`SELECT envelope FROM "${schema}".outbox WHERE subject = 'messaging.conversations.erased.v1' AND envelope->>'aggregateId' = $1`, [code]);
    expect(erased.flatMap((row) => row.envelope.data.conversationIds as string[]).sort()).toEqual([...before].sort());

    // A finder who wrote to the new owner keeps their conversation, even when the transfer's event comes again late.
    await finderWrites(code, 'Found it again');
    const after = await conversationsOf(code);
    await deliver('items.item.transferred.v1', { code, previousOwnerUserId: previousOwner, ownerUserId: nextOwner }, { aggregateId: code, version: 3, occurredAt: new Date(Date.now() - 60_000) });
    expect(await conversationsOf(code)).toEqual(after);
    expect(ok(await rpc<Message[]>('list-messages', { code, viewerUserId: nextOwner })).map((message) => message.content)).toEqual(['Found it again']);
  });

  it('takes an erased co-owner out of the items they shared, and leaves the items and conversations to their owners', async () => {
    const code = newCode();
    const [owner, erased, kept] = [randomUUID(), randomUUID(), randomUUID()];
    await createItem(code, owner);
    await people(code, 2, owner, [erased, kept]);
    await finderWrites(code);
    await deliver('identity.user.deleted.v1', { userId: erased }, { aggregateId: erased, version: 1 });
    expect(await projected(code)).toMatchObject({ owner_user_id: owner, co_owner_user_ids: [kept] });
    expect(await conversationsOf(code)).toHaveLength(1);
    expect(await rpc('list-messages', { code, viewerUserId: erased })).toEqual({ error: expect.objectContaining({ status: 403 }) });
  });
});
