import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createSocket } from 'node:dgram';
import IORedis from 'ioredis';
import nodemailer from 'nodemailer';
import type { CreateMessageResponse, Message } from '@homing/contracts';
import { expectEventually, freePort, ServiceProcess } from '@homing/testing';
import { apiExchange } from '../support/api';
import { startDnsServer, type DnsServer } from '../support/dns-server';
import { mailWithSubject, ownerWithItem, replyToOf, tagAddress } from '../support/relay';
import { plainMail, smtpSend } from '../support/smtp-client';
import { startStack, type Stack } from '../support/stack';

// The relay's sender check (SPF, DKIM, DMARC) for mail to a tag, against a real DNS server of this test's own on the
// loopback (tests/support/dns-server.ts), which the relay asks through RELAY_DNS_SERVERS. The test's SMTP client is
// 127.0.0.1 to the relay, so `ip4:127.0.0.1` lets it send for a domain. Each sender domain below is its own
// organizational domain, so no two of them align.
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const DOMAINS = {
  // A DKIM key published, no SPF, no DMARC record.
  signed: 'dkim-signer.test',
  // SPF lets 127.0.0.1 send.
  spf: 'spf-sender.test',
  // SPF names another host, and DMARC asks for mail that fails to be rejected.
  bank: 'strict-bank.test',
  // Nothing published at all.
  bare: 'no-records.test',
  // Its DNS server fails every query of it.
  broken: 'servfail.test',
};
const RECORDS = {
  [`mail._domainkey.${DOMAINS.signed}`]: [`v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`],
  [DOMAINS.spf]: ['v=spf1 ip4:127.0.0.1 -all'],
  [DOMAINS.bank]: ['v=spf1 ip4:192.0.2.1 -all'],
  [`_dmarc.${DOMAINS.bank}`]: ['v=DMARC1; p=reject'],
  [DOMAINS.broken]: 'SERVFAIL' as const,
};

describe('the mail relay: sender authentication of mail to a tag', () => {
  let dns: DnsServer;
  let stack: Stack;
  let redis: IORedis;
  beforeAll(async () => {
    dns = await startDnsServer(RECORDS);
    // `required` spelled out: a developer's environment with the check off must not turn this file's relay off.
    stack = await startStack({ relay: true, env: { 'mail-relay': { RELAY_SENDER_AUTHENTICATION: 'required', RELAY_DNS_SERVERS: dns.address } } });
    redis = new IORedis(stack.shared.REDIS_URL ?? '', { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    redis?.disconnect();
    await stack?.stop();
    await dns?.stop();
  });

  const messagesOf = async (owner: { code: string; token: string }) => (await apiExchange<Message[]>(stack, 'GET', `/items/${owner.code}/messages`, { token: owner.token })).body;
  /** The spam limits' keys counting messages to the tag (relay-limits.ts), of this stack's namespace. */
  const countedFor = async (code: string) => {
    const canonical = code.replace(/-/g, '').toUpperCase();
    return (await redis.keys(`${stack.namespace}:messages:*`)).filter((key) => key.toUpperCase().includes(canonical));
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1000));
  const unsigned = (from: string, to: string, text: string) => plainMail({ From: from, To: to, Subject: 'Your keys', 'Message-ID': `<${randomUUID()}@example.test>` }, text);

  /** Refused for the sender: no message, no acknowledgement to the From, nothing counted against the tag's limits. */
  const expectNothingFrom = async (owner: { code: string; token: string }, from: string) => {
    await settle();
    expect(await messagesOf(owner)).toEqual([]);
    expect(stack.mail.mailsTo(from)).toEqual([]);
    expect(await countedFor(owner.code)).toEqual([]);
  };

  it('takes a mail signed (DKIM) by its From domain, which publishes no SPF: a conversation with that From', async () => {
    const owner = await ownerWithItem(stack);
    const finder = `sam-${randomUUID()}@${DOMAINS.signed}`;
    const signer = nodemailer.createTransport({
      streamTransport: true,
      buffer: true,
      newline: 'windows',
      dkim: { domainName: DOMAINS.signed, keySelector: 'mail', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
    });
    const { message } = await signer.sendMail({ from: `Sam <${finder}>`, to: tagAddress(owner.code), subject: 'Your keys', text: 'I found your keys at the station.' });
    expect(String(message)).toMatch(/^DKIM-Signature: /m);

    const sent = await smtpSend(stack.relaySmtpPort as number, { mailFrom: finder, rcptTo: [tagAddress(owner.code)] }, String(message));
    expect(sent).toMatchObject({ rcptTo: [250], data: 250 });
    await expectEventually(async () => expect((await messagesOf(owner)).map((item) => [item.author, item.content])).toEqual([['finder', 'I found your keys at the station.']]), { timeoutMs: 5000 });
    // The conversation's finder is the From: the acknowledgement (and later the owner's replies) go there.
    const [acknowledgement] = await stack.mail.waitForMails(finder, 1);
    expect(acknowledgement.subject).toBe('Your message reached the owner');
    expect(await countedFor(owner.code)).not.toEqual([]);
    // The relay asked the test's DNS server for the key.
    expect(dns.queries).toContain(`TXT mail._domainkey.${DOMAINS.signed}`);
  });

  it('takes an unsigned mail whose envelope sender and From are of a domain whose SPF lets the sending host send', async () => {
    const owner = await ownerWithItem(stack);
    const finder = `kim-${randomUUID()}@${DOMAINS.spf}`;
    const sent = await smtpSend(stack.relaySmtpPort as number, { mailFrom: finder, rcptTo: [tagAddress(owner.code)] }, unsigned(`Kim <${finder}>`, tagAddress(owner.code), 'Your wallet is with me.'));
    expect(sent).toMatchObject({ rcptTo: [250], data: 250 });
    await expectEventually(async () => expect((await messagesOf(owner)).map((item) => item.content)).toEqual(['Your wallet is with me.']), { timeoutMs: 5000 });
    await stack.mail.waitForMails(finder, 1);
    expect(dns.queries).toContain(`TXT ${DOMAINS.spf}`);
  });

  it('refuses (550 5.7.26) a forged From of a domain whose SPF names another host and whose DMARC says reject: nothing posted, nothing counted', async () => {
    const owner = await ownerWithItem(stack);
    const victim = `ceo-${randomUUID()}@${DOMAINS.bank}`;
    const sent = await smtpSend(stack.relaySmtpPort as number, { mailFrom: victim, rcptTo: [tagAddress(owner.code)] }, unsigned(victim, tagAddress(owner.code), 'Send the reward to my account.'));
    expect(sent).toMatchObject({ rcptTo: [250], data: 550 });
    expect(sent.transcript.at(-1)).toMatch(new RegExp(`^550 5\\.7\\.26 .*${DOMAINS.bank.replace('.', '\\.')}.*page the tag's QR code opens`));
    await expectNothingFrom(owner, victim);
  });

  it('refuses (550) an unsigned mail from a domain that publishes nothing, even when the envelope names an authorised domain', async () => {
    const owner = await ownerWithItem(stack);
    const stranger = `someone-${randomUUID()}@${DOMAINS.bare}`;
    const bare = await smtpSend(stack.relaySmtpPort as number, { mailFrom: stranger, rcptTo: [tagAddress(owner.code)] }, unsigned(stranger, tagAddress(owner.code), 'Hello, I have your keys.'));
    expect(bare).toMatchObject({ rcptTo: [250], data: 550 });
    // SPF passes for the envelope's domain, which is not the From's: no alignment, no pass.
    const misaligned = await smtpSend(
      stack.relaySmtpPort as number,
      { mailFrom: `bounces@${DOMAINS.spf}`, rcptTo: [tagAddress(owner.code)] },
      unsigned(stranger, tagAddress(owner.code), 'Hello again, I have your keys.'),
    );
    expect(misaligned).toMatchObject({ rcptTo: [250], data: 550 });
    await expectNothingFrom(owner, stranger);
  });

  it('answers 451 4.4.3 when the From domain’s DNS fails (SERVFAIL): the sender retries; nothing posted, nothing counted', async () => {
    const owner = await ownerWithItem(stack);
    const finder = `lee-${randomUUID()}@${DOMAINS.broken}`;
    const sent = await smtpSend(stack.relaySmtpPort as number, { mailFrom: finder, rcptTo: [tagAddress(owner.code)] }, unsigned(finder, tagAddress(owner.code), 'I have your bag.'));
    expect(sent).toMatchObject({ rcptTo: [250], data: 451 });
    expect(sent.transcript.at(-1)).toMatch(/^451 4\.4\.3 /);
    await expectNothingFrom(owner, finder);
  });

  it('answers 451 4.4.3 when no DNS server answers at all, even for a domain that would pass', async () => {
    // A UDP port nobody listens on: the loopback answers "port unreachable" at once, so the test need not wait out a timeout.
    const silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', () => resolve()));
    const deadPort = silent.address().port;
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    const smtpPort = await freePort();
    const relay = new ServiceProcess('mail-relay', await freePort(), {
      ...stack.shared,
      RELAY_SMTP_PORT: String(smtpPort),
      RELAY_SMTP_HOST: '127.0.0.1',
      RELAY_SENDER_AUTHENTICATION: 'required',
      RELAY_DNS_SERVERS: `127.0.0.1:${deadPort}`,
    });
    await relay.start();
    try {
      const owner = await ownerWithItem(stack);
      const finder = `kim-${randomUUID()}@${DOMAINS.spf}`;
      const started = Date.now();
      const sent = await smtpSend(smtpPort, { mailFrom: finder, rcptTo: [tagAddress(owner.code)] }, unsigned(finder, tagAddress(owner.code), 'Your wallet is with me.'));
      expect(sent).toMatchObject({ rcptTo: [250], data: 451 });
      expect(sent.transcript.at(-1)).toMatch(/^451 4\.4\.3 /);
      expect(Date.now() - started).toBeLessThan(10_000);
      await expectNothingFrom(owner, finder);
    } finally {
      await relay.stop();
    }
  });

  it('does not check a mail to a reply address: its token is the proof, and an owner’s provider need not pass', async () => {
    const owner = await ownerWithItem(stack);
    // A finder writes on the page; the owner's e-mail about it carries the owner's reply address.
    expect((await apiExchange<CreateMessageResponse>(stack, 'POST', `/items/${owner.code}/messages`, { body: { content: 'I found your keys.' } })).status).toBe(201);
    const ownerReplyAddress = replyToOf(await mailWithSubject(stack, owner.email, 'Someone wrote about your lost item'));
    expect(ownerReplyAddress).toMatch(/^c-[a-z2-7]{26}@relay\.localhost$/);
    // The owner's domain (example.test) publishes nothing: a tag refuses their mail…
    const other = await ownerWithItem(stack);
    const toTag = await smtpSend(stack.relaySmtpPort as number, { mailFrom: owner.email, rcptTo: [tagAddress(other.code)] }, unsigned(owner.email, tagAddress(other.code), 'Is this yours?'));
    expect(toTag).toMatchObject({ rcptTo: [250], data: 550 });
    // …and their reply address takes it.
    const sent = await smtpSend(stack.relaySmtpPort as number, { mailFrom: owner.email, rcptTo: [ownerReplyAddress] }, unsigned(owner.email, ownerReplyAddress, 'Thank you! At the desk please.'));
    expect(sent).toMatchObject({ rcptTo: [250], data: 250 });
    await expectEventually(
      async () =>
        expect((await messagesOf(owner)).map((item) => [item.author, item.content])).toEqual([
          ['finder', 'I found your keys.'],
          ['owner', 'Thank you! At the desk please.'],
        ]),
      { timeoutMs: 5000 },
    );
  });
});
