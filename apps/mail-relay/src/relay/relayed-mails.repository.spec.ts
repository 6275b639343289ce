import { Logger } from '@nestjs/common';
import type { RedisClient } from '@homing/platform';
import type { MailRelayConfig } from '../config/mail-relay.config';
import { RELAYED_MAIL_WINDOW_MS, RelayedMailsRepository } from './relayed-mails.repository';

const DAY_MS = 24 * 60 * 60 * 1000;
const MAIL = { recipient: { kind: 'reply' as const, token: 'abcdefghijklmnopqrstuvwxyz' }, mailId: 'mail-1', from: 'Sam@Example.test', content: 'I found your keys.' };

/** A Redis of plain keys with their time to live, as the repository uses it. */
function fakeRedis() {
  const keys = new Map<string, { value: string; ttlMs: number }>();
  const redis = {
    set: jest.fn(async (key: string, value: string, px: string, ttlMs: number) => {
      if (px !== 'PX') throw new Error('expected PX');
      keys.set(key, { value, ttlMs });
      return 'OK';
    }),
    exists: jest.fn(async (key: string) => (keys.has(key) ? 1 : 0)),
  };
  return { keys, redis, client: { redis } as unknown as RedisClient };
}

describe('RelayedMailsRepository', () => {
  beforeEach(() => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it('remembers a relayed mail longer than sending servers retry one (about five days), and not for ever', async () => {
    // Postfix and Sendmail give up after 5 days, Exim after 4: a retry of a mail whose 250 was lost comes within them.
    expect(RELAYED_MAIL_WINDOW_MS).toBeGreaterThanOrEqual(5 * DAY_MS + DAY_MS / 2);
    expect(RELAYED_MAIL_WINDOW_MS).toBeLessThanOrEqual(7 * DAY_MS);

    const { keys, client } = fakeRedis();
    const mails = new RelayedMailsRepository(client, { NATS_NAMESPACE: 'ns' } as MailRelayConfig);
    expect(await mails.wasRelayed(MAIL)).toBe(false);
    await mails.remember(MAIL);
    expect([...keys.values()].map(({ ttlMs }) => ttlMs)).toEqual([RELAYED_MAIL_WINDOW_MS]);
    expect(await mails.wasRelayed(MAIL)).toBe(true);
  });

  it('knows a mail by recipient, mail id, sender and text: another recipient, or other text under the same id, is another', async () => {
    const { client } = fakeRedis();
    const mails = new RelayedMailsRepository(client, { NATS_NAMESPACE: 'ns' } as MailRelayConfig);
    await mails.remember(MAIL);
    expect(await mails.wasRelayed({ ...MAIL, from: 'sam@example.TEST' })).toBe(true);
    expect(await mails.wasRelayed({ ...MAIL, recipient: { kind: 'tag', code: 'ABCDEFGHJKMNPQRS' } })).toBe(false);
    expect(await mails.wasRelayed({ ...MAIL, content: 'Other text.' })).toBe(false);
    expect(await mails.wasRelayed({ ...MAIL, mailId: 'mail-2' })).toBe(false);
  });

  it('keeps no address, token or text in the key, and keys environments apart', async () => {
    const { keys, client } = fakeRedis();
    await new RelayedMailsRepository(client, { NATS_NAMESPACE: 'ns' } as MailRelayConfig).remember(MAIL);
    const [key] = keys.keys();
    expect(key).toMatch(/^ns:mail-relay:relayed:[A-Za-z0-9_-]{43}$/);
    expect(key).not.toContain(MAIL.recipient.token);
  });

  it('says “not relayed” when Redis is away, so that messaging’s own key decides', async () => {
    const { redis, client } = fakeRedis();
    redis.exists.mockRejectedValue(new Error('Connection is closed.'));
    redis.set.mockRejectedValue(new Error('Connection is closed.'));
    const mails = new RelayedMailsRepository(client, { NATS_NAMESPACE: 'ns' } as MailRelayConfig);
    await expect(mails.remember(MAIL)).resolves.toBeUndefined();
    expect(await mails.wasRelayed(MAIL)).toBe(false);
  });
});
