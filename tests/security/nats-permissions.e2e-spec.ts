import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { ClaimResponse, HandoverCode, HandoverResult, PublicItem } from '@homing/contracts';
import { expectEventually, freePort, isolatedName, runServiceCommand } from '@homing/testing';
import { parse } from 'yaml';
import { testAccessToken } from '../support/access-tokens';
import { mailWithSubject, relayMail, replyToOf, tagAddress } from '../support/relay';
import { startStack, type Stack } from '../support/stack';

// S11 with the production NATS configuration: the per-service users and subject permissions of
// deploy/helm/nats-values.yaml, on a private nats-server. Every service runs as its own user (as the prod overlay
// has it), the product's paths work end to end, and a client without a service's credentials, or with another
// service's, can neither call RPCs nor publish events it does not own.
const NATS_SERVER = '/usr/sbin/nats-server';
type User = 'gateway' | 'identity' | 'items' | 'messaging' | 'notifications' | 'mailrelay' | 'operator';

interface HelmValues {
  config: { merge: { authorization: { users: Array<{ user: User; password: string }> } } };
}

/** The authorization block of the Helm values, with each `<< $VAR >>` password replaced by a fresh one. */
function authorizationFromHelmValues(): { authorization: HelmValues['config']['merge']['authorization']; passwords: Record<User, string> } {
  const values = parse(readValues()) as HelmValues;
  const passwords = {} as Record<User, string>;
  const users = values.config.merge.authorization.users.map((entry) => {
    passwords[entry.user] = randomBytes(12).toString('hex');
    expect(entry.password).toMatch(/^<< \$NATS_[A-Z]+_PASSWORD >>$/);
    return { ...entry, password: passwords[entry.user] };
  });
  return { authorization: { users }, passwords };
}

function readValues(): string {
  return readFileSync(join(__dirname, '../../deploy/helm/nats-values.yaml'), 'utf8');
}

(existsSync(NATS_SERVER) ? describe : describe.skip)('NATS with per-service users (production configuration)', () => {
  let server: ChildProcess;
  let storeDir: string;
  let port: number;
  let passwords: Record<User, string>;
  let stack: Stack;
  let tags: string[];
  const clients: NatsConnection[] = [];
  const urlOf = (user: User) => `nats://${user}:${passwords[user]}@127.0.0.1:${port}`;
  const as = async (user: User) => {
    const client = await connect({ servers: `nats://127.0.0.1:${port}`, user, pass: passwords[user], timeout: 3000 });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    port = await freePort();
    storeDir = mkdtempSync(join(tmpdir(), 'homing-nats-auth-'));
    const auth = authorizationFromHelmValues();
    passwords = auth.passwords;
    // NATS reads JSON as configuration.
    const configFile = join(storeDir, 'nats.conf');
    writeFileSync(configFile, JSON.stringify({ host: '127.0.0.1', port, jetstream: { store_dir: join(storeDir, 'js') }, authorization: auth.authorization }));
    server = spawn(NATS_SERVER, ['-c', configFile], { stdio: 'ignore' });
    await expectEventually(async () => (await as('operator')).close());

    const bullmqPrefix = `homing_${isolatedName()}`;
    // No namespace: the subjects exactly as production names them, on a server of this test's own.
    const natsFor = (user: User) => ({ NATS_URL: urlOf(user), NATS_NAMESPACE: '' });
    stack = await startStack({
      relay: true,
      env: {
        'mail-relay': natsFor('mailrelay'),
        gateway: { ...natsFor('gateway'), TRUSTED_PROXIES: '127.0.0.1,::1' },
        identity: natsFor('identity'),
        items: natsFor('items'),
        messaging: natsFor('messaging'),
        notifications: { ...natsFor('notifications'), BULLMQ_PREFIX: bullmqPrefix },
      },
      beforeStart: async ({ envOf }) => {
        tags = (await runServiceCommand('items', ['seed-tags', '--count', '2'], envOf('items'))).trim().split('\n');
      },
    });
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await stack?.stop();
    server?.kill('SIGKILL');
    if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  });

  const post = async <T>(path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${stack.api}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.9.${Math.floor(Math.random() * 250)}.1`, ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T };
  };

  it('runs every path of the product: activation (items → identity, events to messaging and notifications), a finder message, a login code, a mail to the relay, a scan alert, a hand-over', async () => {
    const [code] = tags;
    const email = `owner-${randomUUID()}@example.test`;
    const claimed = await post<ClaimResponse>('/claim', { code, email });
    expect(claimed.status).toBe(200);
    expect(claimed.body.response_code).toBe('NEW_USER_REGISTERED');
    // identity's secrets stream → notifications: the welcome e-mail; items' event → the tag-activated e-mail.
    await stack.mail.waitForMails(email, 2);

    // messaging learned the owner from items' event, so a finder can write.
    let finderToken = '';
    await expectEventually(async () => {
      const message = await post<{ finder_token?: string }>(`/items/${code}/messages`, { content: 'Found your keys by the station.' });
      expect(message.status).toBe(201);
      finderToken = message.body.finder_token ?? '';
    });

    // identity → notifications over the secrets stream, again with a code.
    const codeRequest = await fetch(`${stack.api}/magic-link?email=${encodeURIComponent(email)}`, { headers: { 'x-forwarded-for': '10.9.0.2' } });
    expect(codeRequest.status).toBe(200);
    await stack.mail.waitForMails(email, 3);

    // The relay → messaging; notifications → messaging for the reply addresses of the owner's and the finder's mail.
    const finder = `finder-${randomUUID()}@example.test`;
    const mailed = await relayMail(stack, { mailFrom: finder, rcptTo: [tagAddress(code)] }, { From: finder, Subject: 'Keys' }, 'Found your keys by the station.');
    expect(mailed.data).toBe(250);
    expect(replyToOf(await mailWithSubject(stack, finder, 'Your message reached the owner'))).toMatch(/^c-[a-z2-7]{26}@relay\.localhost$/);
    await expectEventually(() => {
      const aboutMessages = stack.mail.mailsTo(email).filter((mail) => mail.subject === 'Someone wrote about your lost item');
      expect(aboutMessages.map(replyToOf)).toEqual([expect.stringMatching(/^c-[a-z2-7]{26}@relay\.localhost$/), expect.stringMatching(/^c-[a-z2-7]{26}@relay\.localhost$/)]);
    });

    // A lost item's scan: items' event → notifications, which asks items for the scan's place (items.rpc.get-scan).
    const { rows } = await stack.db.query<{ id: string }>(`SELECT id FROM "${stack.schemaOf('identity')}".users WHERE email = $1`, [email]);
    const owner = { authorization: `Bearer ${testAccessToken({ id: rows[0].id, email }).token}` };
    const lost = await fetch(`${stack.api}/user/items/${code}`, { method: 'PATCH', headers: { ...owner, 'content-type': 'application/json' }, body: JSON.stringify({ lost: true }) });
    expect(lost.status).toBe(200);
    expect((await fetch(`${stack.api}/items/${code}/scans`, { method: 'POST', headers: { 'x-forwarded-for': '145.53.1.1' } })).status).toBe(204);
    expect((await mailWithSubject(stack, email, 'Your lost item’s tag was scanned')).text).toContain('Arnhem');

    // The hand-over: messaging's event → items, which ends lost mode.
    const today = (await (await fetch(`${stack.api}/user/items/${code}/handover-code`, { headers: owner })).json()) as HandoverCode;
    expect((await post<HandoverResult>(`/items/${code}/handover`, { code: today.code }, { 'x-finder-token': finderToken })).status).toBe(200);
    await expectEventually(async () => expect(((await (await fetch(`${stack.api}/items/${code}`)).json()) as PublicItem).lost).toBe(false));

    // Every event subject a service follows is one its user may subscribe to: a refused one fails over and over
    // (the gateway's caches were never live for `messaging.finder.left.v1`), with nothing else to show for it.
    for (const [name, service] of stack.services) expect({ name, refused: service.logs.match(/Subscription to \S+ failed[^\n]*/g) ?? [] }).toEqual({ name, refused: [] });
  });

  it('refuses a client without credentials', async () => {
    await expect(connect({ servers: `nats://127.0.0.1:${port}`, timeout: 3000, maxReconnectAttempts: 0 })).rejects.toThrow(/authorization/i);
    await expect(connect({ servers: `nats://127.0.0.1:${port}`, user: 'items', pass: 'guessed', timeout: 3000, maxReconnectAttempts: 0 })).rejects.toThrow(/authorization/i);
  });

  it("lets no service call RPCs it has no business with, or publish another service's events", async () => {
    const denied = async (user: User, subject: string) => {
      const client = await as(user);
      const errors: string[] = [];
      void (async () => {
        for await (const status of client.status()) if (status.type === 'error') errors.push(String((status as { error?: unknown }).error ?? ''));
      })();
      client.publish(subject, '{}');
      await client.flush();
      await expectEventually(() => expect(errors.join('\n')).toMatch(/permissions violation/i));
      return true;
    };
    expect(await denied('items', 'messaging.rpc.list-messages')).toBe(true);
    expect(await denied('items', 'identity.rpc.get-user')).toBe(true);
    expect(await denied('gateway', 'items.item.claimed.v1')).toBe(true);
    expect(await denied('notifications', 'messaging.message.created.v1')).toBe(true);
    expect(await denied('messaging', 'identity.user.registered.v1')).toBe(true);
    expect(await denied('mailrelay', 'messaging.rpc.list-messages')).toBe(true);
    expect(await denied('mailrelay', 'messaging.message.created.v1')).toBe(true);
  });

  it("keeps a service from listening to another service's RPCs", async () => {
    const client = await as('gateway');
    const errors: string[] = [];
    void (async () => {
      for await (const status of client.status()) if (status.type === 'error') errors.push(String((status as { error?: unknown }).error ?? ''));
    })();
    client.subscribe('identity.rpc.>');
    await client.flush();
    await expectEventually(() => expect(errors.join('\n')).toMatch(/permissions violation/i));
  });
});
