import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { Client } from 'pg';
import { dropSchemas, ensureDatabase, expectEventually, isolatedName, runServiceCommand, ServiceProcess, freePort, testInfra } from '@homing/testing';
import { NATS_SERVER, PrivateNats } from '../fault/harness/private-infra';

// A consumer's pull waits 30 s for events (libs/platform's EventConsumerRunner: what an idle consumer costs is one
// renewal per pull). That must cost no latency: an event published while the pull waits is handled at once, and after
// NATS restarts the consumer pulls again as soon as it reconnects, not when its lost pull would have run out. Shown
// with the built messaging service and its item-owners projection, against a nats-server of the test's own.
const PULL_MS = 30_000;
// Well inside one pull: a consumer that waited out its pull after the restart would miss it.
const WITHIN_MS = PULL_MS / 2;

const describeWithNats = existsSync(NATS_SERVER) ? describe : describe.skip;

describeWithNats('event consumers across a NATS restart', () => {
  const infra = testInfra();
  const namespace = isolatedName();
  const schema = `messaging_${namespace}`;
  let nats: PrivateNats;
  let nc: NatsConnection;
  let db: Client;
  let messaging: ServiceProcess;

  const ownerOf = async (code: string) => {
    const { rows } = await db.query(`SELECT owner_user_id FROM "${schema}".item_owners WHERE item_code = $1`, [code]);
    return rows[0]?.owner_user_id as string | undefined;
  };

  /** An item created as items' relay would publish it; resolves once JetStream has stored it. */
  const itemCreated = async (code: string, ownerUserId: string) => {
    const event = {
      id: randomUUID(),
      subject: 'items.item.created.v1',
      occurredAt: new Date().toISOString(),
      correlationId: 'reconnect-test',
      causationId: null,
      producer: 'items',
      aggregateId: code,
      version: 1,
      data: { code, ownerUserId, claimedAt: new Date().toISOString(), name: 'Keys' },
    };
    await jetstream(nc).publish(`${namespace}.items.item.created.v1`, JSON.stringify(event), { msgID: event.id });
  };

  beforeAll(async () => {
    nats = await PrivateNats.start();
    const env = { DATABASE_URL: infra.databaseUrl, DATABASE_SCHEMA: schema, NATS_URL: nats.url, NATS_NAMESPACE: namespace, NODE_ENV: 'test' };
    await ensureDatabase(infra.databaseUrl);
    await runServiceCommand('messaging', ['migrate'], env);
    db = new Client({ connectionString: infra.databaseUrl });
    await db.connect();
    messaging = new ServiceProcess('messaging', await freePort(), env);
    await messaging.start();
    nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
  });

  afterAll(async () => {
    await messaging?.stop();
    await nc?.close();
    await db?.end();
    await nats?.stop();
    await dropSchemas(infra.databaseUrl, [schema]);
  });

  it('handles an event published while its pull waits, and again soon after NATS restarts', async () => {
    // The consumer is waiting on a pull by now; this event arrives inside it.
    const first = { code: `R${randomUUID().slice(0, 8)}`, owner: randomUUID() };
    await itemCreated(first.code, first.owner);
    await expectEventually(async () => expect(await ownerOf(first.code)).toBe(first.owner), { timeoutMs: WITHIN_MS });

    await nats.process.kill('SIGKILL');
    await nats.restart();
    const second = { code: `R${randomUUID().slice(0, 8)}`, owner: randomUUID() };
    const restartedAt = Date.now();
    await expectEventually(() => itemCreated(second.code, second.owner), { timeoutMs: WITHIN_MS });
    await expectEventually(async () => expect(await ownerOf(second.code)).toBe(second.owner), { timeoutMs: WITHIN_MS - (Date.now() - restartedAt) });
  });
});
