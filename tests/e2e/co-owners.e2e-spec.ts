import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import type { CreateMessageResponse, HttpErrorBody, InvitationAccepted, ItemNotificationSettings, ItemPeople, Message, PublicItem } from '@homing/contracts';
import { expectEventually, linkIn } from '@homing/testing';
import { testAccessToken } from '../support/access-tokens';
import { apiCall, type ApiCaller } from '../support/api';
import { EventStreamClient } from '../support/event-stream-client';
import { startStack, type Stack } from '../support/stack';

// Co-owners and the hand-over of ownership through the whole stack (issue 27): items owns who the people of an item
// are, messaging and notifications learn it from items' events, and each person is told as they chose.
describe('co-owners and the hand-over of ownership', () => {
  const publicUrl = 'https://homing.e2e';
  const SUBJECT = 'Someone wrote about your lost item';
  let stack: Stack;
  let redis: IORedis;
  let emailQueue: Queue;

  beforeAll(async () => {
    // Rewards on: a transfer's reward is one of the things handed over, or not.
    stack = await startStack({ env: { notifications: { PUBLIC_URL: publicUrl }, items: { REWARDS_ENABLED: 'true' } } });
    redis = new IORedis(stack.shared.REDIS_URL ?? '', { maxRetriesPerRequest: null });
    emailQueue = new Queue('email', { connection: redis, prefix: `homing_${stack.namespace}` });
  });

  afterAll(async () => {
    await emailQueue?.close();
    redis?.disconnect();
    await stack?.stop();
  });

  const call = <T = unknown>(method: string, path: string, options: ApiCaller = {}) => apiCall<T>(stack, method, path, options);
  const emailsSettled = () => expectEventually(async () => expect(await emailQueue.getJobCounts('waiting', 'active', 'delayed')).toEqual({ waiting: 0, active: 0, delayed: 0 }));
  const aboutMessages = (email: string) => stack.mail.mailsTo(email).filter((mail) => mail.subject === SUBJECT);

  /** A person identity knows (so e-mails reach them), logged in by a test token. */
  async function person(language = 'en') {
    const email = `person-${randomUUID()}@example.test`;
    const reply = await stack.nc.request(`${stack.namespace}.identity.rpc.ensure-user`, JSON.stringify({ email, language }), { timeout: 5000 });
    const { userId } = reply.json<{ userId: string }>();
    return { email, userId, token: testAccessToken({ id: userId, email }).token };
  }

  async function ownerWithItem() {
    const owner = await person();
    const created = await call<PublicItem>('POST', '/items', { token: owner.token, body: { name: 'Bike' } });
    const code = created.body.code;
    await expectEventually(async () => expect((await call('GET', `/user/items/${code}/unread-count`, { token: owner.token })).status).toBe(200));
    return { ...owner, code };
  }

  /** Invites the address and accepts with the link from its e-mail, logged in as `accepter` (or not at all). */
  async function invited(code: string, ownerToken: string, email: string, accepter?: string, kind: 'co-owners' | 'transfer' = 'co-owners') {
    expect((await call('POST', `/user/items/${code}/${kind}`, { token: ownerToken, body: { email } })).status).toBe(201);
    const mail = await expectEventually(async () => {
      const found = stack.mail.mailsTo(email).find((candidate) => candidate.text.includes(`${publicUrl}/invite/`));
      expect(found).toBeDefined();
      return found!;
    });
    const token = new URL(linkIn(mail, `${publicUrl}/invite/`)).pathname.split('/').pop() as string;
    const accepted = await call<InvitationAccepted>('POST', `/invitations/${token}/accept`, { token: accepter });
    expect(accepted.status).toBe(200);
    return { token, accepted: accepted.body };
  }

  it('shares an item: the co-owner sees it, both are e-mailed, each as they chose, and the co-owner answers as the owner', async () => {
    const owner = await ownerWithItem();
    const coOwner = await person('nl');
    await invited(owner.code, owner.token, coOwner.email, coOwner.token);

    const seen = await call<PublicItem>('GET', `/user/items/${owner.code}`, { token: coOwner.token });
    expect(seen.body).toMatchObject({ code: owner.code, is_owner: true, role: 'co-owner', shared: true });
    expect((await call<PublicItem[]>('GET', '/user/items', { token: coOwner.token })).body.map((item) => item.code)).toContain(owner.code);
    expect((await call('GET', `/user/items/${owner.code}/scans`, { token: coOwner.token })).status).toBe(200);
    const people = (await call<ItemPeople>('GET', `/user/items/${owner.code}/co-owners`, { token: coOwner.token })).body;
    expect(people.people.map(({ email, role }) => ({ email, role }))).toEqual([
      { email: owner.email, role: 'owner' },
      { email: coOwner.email, role: 'co-owner' },
    ]);

    // A finder writes: the owner and the co-owner are both e-mailed.
    await expectEventually(async () => expect((await call('GET', `/items/${owner.code}/messages`, { token: coOwner.token })).status).toBe(200));
    const first = await call<CreateMessageResponse>('POST', `/items/${owner.code}/messages`, { body: { content: 'Found your bike' } });
    expect(first.status).toBe(201);
    await expectEventually(async () => {
      expect(aboutMessages(owner.email)).toHaveLength(1);
      expect(stack.mail.mailsTo(coOwner.email).filter((mail) => mail.text.includes('/login?c='))).toHaveLength(1);
    });

    // The co-owner's reply reaches the finder as the owner's.
    const reply = await call<CreateMessageResponse>('POST', `/items/${owner.code}/messages`, { token: coOwner.token, body: { content: 'Thank you!' } });
    expect(reply.status).toBe(201);
    const thread = (await call<Message[]>('GET', `/items/${owner.code}/messages`, { finderToken: first.body.finder_token })).body;
    expect(thread.at(-1)).toMatchObject({ author: 'owner', content: 'Thank you!' });

    // The co-owner turns e-mail off: a new finder's message e-mails the owner only.
    const off = await call<ItemNotificationSettings>('PATCH', `/user/items/${owner.code}/notifications`, { token: coOwner.token, body: { email: false } });
    expect(off.body).toEqual({ email: false, push: true });
    expect((await call<ItemNotificationSettings>('GET', `/user/items/${owner.code}/notifications`, { token: owner.token })).body).toEqual({ email: true, push: true });
    expect((await call('POST', `/items/${owner.code}/messages`, { body: { content: 'I found it too' } })).status).toBe(201);
    await expectEventually(async () => expect(aboutMessages(owner.email)).toHaveLength(2));
    await emailsSettled();
    expect(stack.mail.mailsTo(coOwner.email).filter((mail) => mail.text.includes('/login?c='))).toHaveLength(1);
  });

  it('keeps what only the owner may do to the owner, and a removed co-owner out', async () => {
    const owner = await ownerWithItem();
    const coOwner = await person();
    await invited(owner.code, owner.token, coOwner.email, coOwner.token);
    const as = { token: coOwner.token };
    for (const [method, path, body] of [
      ['DELETE', `/user/items/${owner.code}`, undefined],
      ['POST', `/user/items/${owner.code}/reset`, undefined],
      ['POST', `/user/items/${owner.code}/co-owners`, { email: 'friend@example.test' }],
      ['POST', `/user/items/${owner.code}/transfer`, { email: 'friend@example.test' }],
      ['PATCH', `/user/items/${owner.code}`, { name: 'Mine now' }],
    ] as const) {
      const answer = await call<HttpErrorBody>(method, path, { ...as, body });
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 403 });
    }
    // Lost or found is theirs to mark too.
    expect((await call<PublicItem>('PATCH', `/user/items/${owner.code}`, { ...as, body: { lost: true } })).body.lost).toBe(true);
    // Both read the thread as it is written, the co-owner on an open stream.
    const opened = await EventStreamClient.open(`${stack.api}/items/${owner.code}/messages/stream`, as);
    expect(opened.status).toBe(200);
    const ownerStream = (await EventStreamClient.open(`${stack.api}/items/${owner.code}/messages/stream`, { token: owner.token })).stream!;

    // Removed: the item is gone for them, their open stream ends (it carried every new finder's message on), and a
    // finder's message no longer e-mails them.
    // An id that names nobody, of any shape, is the one 404 (a UUID-like string of another version answered 422).
    for (const nobody of ['aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa', 'not-an-id']) {
      expect(await call<HttpErrorBody>('DELETE', `/user/items/${owner.code}/co-owners/${nobody}`, { token: owner.token })).toMatchObject({ status: 404, body: { response_code: 'NOT_FOUND' } });
    }
    expect((await call('DELETE', `/user/items/${owner.code}/co-owners/${coOwner.userId}`, { token: owner.token })).status).toBe(204);
    await expect(opened.stream!.closed).resolves.toBe('ended');
    expect((await call('GET', `/user/items/${owner.code}`, as)).status).toBe(404);
    await expectEventually(async () => expect((await call('GET', `/items/${owner.code}/messages`, as)).status).toBe(403));
    expect((await call('POST', `/items/${owner.code}/messages`, { body: { content: 'Found it' } })).status).toBe(201);
    await expectEventually(async () => expect(aboutMessages(owner.email)).toHaveLength(1));
    await expectEventually(() => expect(ownerStream.messages.map((message) => message.content)).toContain('Found it'));
    ownerStream.close();
    expect(opened.stream!.messages).toEqual([]);
    await emailsSettled();
    expect(aboutMessages(coOwner.email)).toHaveLength(0);
  });

  it('hands the item over: the new owner starts with an empty thread and no reward the old owner offered, the old owner and the co-owners lose it', async () => {
    const owner = await ownerWithItem();
    const coOwner = await person();
    await invited(owner.code, owner.token, coOwner.email, coOwner.token);
    expect((await call('POST', `/items/${owner.code}/messages`, { body: { content: 'Found your bike' } })).status).toBe(201);
    const streams = await Promise.all([owner.token, coOwner.token].map(async (token) => (await EventStreamClient.open(`${stack.api}/items/${owner.code}/messages/stream`, { token })).stream!));

    // The old owner offers a reward, which the finder sees: a promise of theirs, not the new owner's.
    expect((await call('PATCH', `/user/items/${owner.code}`, { token: owner.token, body: { reward: 5000 } })).status).toBe(200);
    await expectEventually(async () => expect((await call<PublicItem>('GET', `/items/${owner.code}`)).body.reward).toBe(5000));

    // A new address: accepting without a log-in makes its account, as activation does.
    const newOwnerEmail = `new-owner-${randomUUID()}@example.test`;
    const { accepted, token } = await invited(owner.code, owner.token, newOwnerEmail, undefined, 'transfer');
    expect(accepted).toMatchObject({ code: owner.code, response_code: 'NEW_USER_REGISTERED', login_token: expect.any(String) });
    expect((await call<HttpErrorBody>('POST', `/invitations/${token}/accept`)).body.response_code).toBe('INVITATION_EXPIRED');
    // The old owner's and the co-owner's open streams end: the new owner's finders are none of theirs.
    expect(await Promise.all(streams.map((stream) => stream.closed))).toEqual(['ended', 'ended']);

    const { rows } = await stack.db.query<{ id: string }>(`SELECT id FROM "${stack.schemaOf('identity')}".users WHERE email = $1`, [newOwnerEmail]);
    const newOwner = testAccessToken({ id: rows[0].id, email: newOwnerEmail }).token;
    expect((await call<PublicItem>('GET', `/user/items/${owner.code}`, { token: newOwner })).body).toMatchObject({ is_owner: true, role: 'owner', shared: false });
    expect((await call('GET', `/user/items/${owner.code}`, { token: owner.token })).status).toBe(404);
    expect((await call('GET', `/user/items/${owner.code}`, { token: coOwner.token })).status).toBe(404);
    // Neither the new owner nor a finder sees the old owner's reward.
    expect((await call<PublicItem>('GET', `/user/items/${owner.code}`, { token: newOwner })).body.reward ?? null).toBeNull();
    await expectEventually(async () => expect((await call<PublicItem>('GET', `/items/${owner.code}`)).body.reward ?? null).toBeNull());
    await expectEventually(async () => expect((await call<Message[]>('GET', `/items/${owner.code}/messages`, { token: newOwner })).body).toEqual([]));
    expect((await call('GET', `/items/${owner.code}/messages`, { token: owner.token })).status).toBe(403);
  });
});
