import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Message } from '@homing/contracts';
import { expectEventually, type ReceivedMail } from '@homing/testing';
import { apiExchange, type ApiCaller } from '../support/api';
import { mailWithSubject, ownerWithItem, replyToOf, tagAddress } from '../support/relay';
import { plainMail, smtpSend } from '../support/smtp-client';
import { stackForSuite } from '../support/stack';

// The e-mail relay end to end over real SMTP on the loopback: a finder who e-mails a tag's address, the replies that
// go back and forth through the reply addresses, and the mail that must become nothing.
// The relay offers STARTTLS with a certificate of this test's own; senders that cannot encrypt still deliver.
const tlsDirectory = mkdtempSync(join(tmpdir(), 'homing-relay-tls-'));
execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=relay.localhost',
  '-addext', 'subjectAltName=DNS:relay.localhost,IP:127.0.0.1', '-keyout', join(tlsDirectory, 'key.pem'), '-out', join(tlsDirectory, 'cert.pem')], { stdio: 'ignore' });

describe('the e-mail relay', () => {
  const stack = stackForSuite({ relay: true, env: { 'mail-relay': { RELAY_TLS_CERT_FILE: join(tlsDirectory, 'cert.pem'), RELAY_TLS_KEY_FILE: join(tlsDirectory, 'key.pem') } } });
  afterAll(() => rmSync(tlsDirectory, { recursive: true, force: true }));
  const call = <T = unknown>(method: string, path: string, options: ApiCaller = {}) => apiExchange<T>(stack, method, path, options);
  const relay = (envelope: { mailFrom: string; rcptTo: string[] }, message: string) => smtpSend(stack.relaySmtpPort as number, envelope, message);
  const newOwner = (password = false) => ownerWithItem(stack, { password });

  const thread = async (code: string, token: string) => (await call<Message[]>('GET', `/items/${code}/messages`, { token })).body;

  it('opens a conversation from a mail to a tag, acknowledges it, and carries replies both ways without the quotes', async () => {
    const owner = await newOwner();
    const { code } = owner;
    const finder = `finder-${randomUUID()}@example.test`;

    const sent = await relay(
      { mailFrom: finder, rcptTo: [tagAddress(code).toUpperCase().replace('@RELAY.LOCALHOST', '@relay.localhost')] },
      plainMail(
        { From: `Sam Finder <${finder}>`, To: tagAddress(code), Subject: 'Your keys', 'Message-ID': `<${randomUUID()}@example.test>` },
        'I found your keys at the station. I can bring them tomorrow.\n\n-- \nSam\nSent from my phone',
      ),
    );
    expect(sent).toMatchObject({ mailFrom: 250, rcptTo: [250], data: 250 });

    // In the owner's thread within 5 s (counted unread, so that reading it does not stop the owner's e-mail)…
    await expectEventually(async () => expect((await call<number>('GET', `/user/items/${code}/unread-count`, { token: owner.token })).body).toBe(1), { timeoutMs: 5000 });

    // …and the finder's acknowledgement, in English, from a reply address of their own; the owner's e-mail about the
    // message has one of the owner's (their first mail is activation's welcome).
    const [acknowledgement] = await stack.mail.waitForMails(finder, 1);
    expect(acknowledgement.subject).toBe('Your message reached the owner');
    const finderReplyAddress = replyToOf(acknowledgement);
    expect(finderReplyAddress).toMatch(/^c-[a-z2-7]{26}@relay\.localhost$/);
    const ownerMail = await mailWithSubject(stack, owner.email, 'Someone wrote about your lost item');
    const ownerReplyAddress = replyToOf(ownerMail);
    expect(ownerReplyAddress).toMatch(/^c-[a-z2-7]{26}@relay\.localhost$/);
    expect(ownerReplyAddress).not.toBe(finderReplyAddress);
    // Neither side's address is in the other's mail.
    expect(ownerMail.raw).not.toContain(finder);

    // The message, without the signature.
    const [first] = await thread(code, owner.token);
    expect(first).toMatchObject({ author: 'finder', content: 'I found your keys at the station. I can bring them tomorrow.' });

    // The owner answers on the page: the finder's mailbox gets it, with a (new) reply address.
    expect((await call('POST', `/items/${code}/messages`, { token: owner.token, body: { content: 'Thank you! Tomorrow at 10 at the station?', conversation_id: first.conversation_id } })).status).toBe(201);
    const mails = await stack.mail.waitForMails(finder, 2);
    const ownerReply = mails.find((mail) => mail.subject === 'The owner answered your message') as ReceivedMail;
    expect(ownerReply).toBeDefined();
    const replyAddress = replyToOf(ownerReply);
    expect(replyAddress).toMatch(/^c-[a-z2-7]{26}@relay\.localhost$/);

    // The finder answers that mail, their program quoting it below: only the new text reaches the thread.
    const answered = await relay(
      { mailFrom: finder, rcptTo: [replyAddress] },
      plainMail(
        { From: finder, To: replyAddress, Subject: 'Re: The owner answered your message', 'Message-ID': `<${randomUUID()}@example.test>` },
        'Yes, 10 is fine. See you there.\n\nOn Thu, 26 Nov 2026 at 10:02, Homing <no-reply@homing.localhost>\nwrote:\n\n> The owner of the item answered your message.\n> Read the answer',
      ),
    );
    expect(answered.data).toBe(250);
    await expectEventually(async () => expect((await thread(code, owner.token)).map((message) => [message.author, message.content])).toContainEqual(['finder', 'Yes, 10 is fine. See you there.']), { timeoutMs: 5000 });

    // The owner answers their own e-mail (Outlook's header block below): it is the owner's message, the finder is told.
    const byOwner = await relay(
      { mailFrom: owner.email, rcptTo: [ownerReplyAddress] },
      plainMail(
        { From: owner.email, To: ownerReplyAddress, Subject: 'RE: Someone wrote about your lost item', 'Message-ID': `<${randomUUID()}@example.test>` },
        'Perfect, see you at 10.\r\n\r\nFrom: Homing <no-reply@homing.localhost>\r\nSent: Thursday, 26 November 2026 10:00\r\nTo: me\r\nSubject: Someone wrote about your lost item',
      ),
    );
    expect(byOwner.data).toBe(250);
    await expectEventually(async () => expect((await thread(code, owner.token)).map((message) => [message.author, message.content])).toContainEqual(['owner', 'Perfect, see you at 10.']), { timeoutMs: 5000 });
    await stack.mail.waitForMails(finder, 3);

    // The same mail delivered twice (a sender that did not see the 250) adds nothing.
    const before = (await thread(code, owner.token)).length;
    const resent = plainMail({ From: finder, To: replyAddress, Subject: 'Re: again', 'Message-ID': '<same-mail-twice@example.test>' }, 'One more thing: the blue key is for the bike.');
    expect((await relay({ mailFrom: finder, rcptTo: [replyAddress] }, resent)).data).toBe(250);
    expect((await relay({ mailFrom: finder, rcptTo: [replyAddress] }, resent)).data).toBe(250);
    await expectEventually(async () => expect(await thread(code, owner.token)).toHaveLength(before + 1));
  });

  it('takes mail over STARTTLS from a sender that insists on encryption', async () => {
    const owner = await newOwner();
    const finder = `finder-${randomUUID()}@example.test`;
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: stack.relaySmtpPort, secure: false, requireTLS: true, tls: { ca: readFileSync(join(tlsDirectory, 'cert.pem')), servername: 'relay.localhost' } });
    try {
      const sent = await transport.sendMail({ from: finder, to: tagAddress(owner.code), subject: 'Found your keys', text: 'They were on the bench by the river.' });
      expect(sent.accepted).toEqual([tagAddress(owner.code)]);
    } finally {
      transport.close();
    }
    await expectEventually(async () => expect(await call<number>('GET', `/user/items/${owner.code}/unread-count`, { token: owner.token })).toMatchObject({ body: 1 }));
  });

  it('acknowledges in the language of the finder’s mail', async () => {
    const owner = await newOwner();
    const { code } = owner;
    const finder = `vinder-${randomUUID()}@example.test`;
    const sent = await relay(
      { mailFrom: finder, rcptTo: [tagAddress(code)] },
      plainMail({ From: finder, To: tagAddress(code), Subject: 'Sleutels' }, 'Hallo, ik heb je sleutels gevonden bij het station. Groeten!'),
    );
    expect(sent.data).toBe(250);
    const [acknowledgement] = await stack.mail.waitForMails(finder, 1);
    expect(acknowledgement.subject).toBe('Je bericht is bij de eigenaar aangekomen');
  });

  it('turns auto-replies, bounces and mail to unknown or retired tags into nothing', async () => {
    const owner = await newOwner();
    const { code } = owner;
    const finder = `finder-${randomUUID()}@example.test`;
    const headers = (extra: Record<string, string> = {}) => ({ From: finder, To: tagAddress(code), Subject: 'Out of office', ...extra });

    const autoReply = await relay({ mailFrom: finder, rcptTo: [tagAddress(code)] }, plainMail(headers({ 'Auto-Submitted': 'auto-replied' }), 'I am away until Monday.'));
    const bulk = await relay({ mailFrom: finder, rcptTo: [tagAddress(code)] }, plainMail(headers({ Precedence: 'bulk' }), 'Our newsletter.'));
    const bounce = await relay({ mailFrom: '', rcptTo: [tagAddress(code)] }, plainMail(headers({ From: 'MAILER-DAEMON@example.test' }), 'Delivery failed.'));
    // Taken (so the sending robot does not retry or bounce back), and dropped.
    expect([autoReply.data, bulk.data, bounce.data]).toEqual([250, 250, 250]);

    // An unknown tag, and a made-up reply address, are refused at RCPT TO.
    const unknownTag = await relay({ mailFrom: finder, rcptTo: ['tag-0000000000000000@relay.localhost'] }, plainMail(headers(), 'Hello?'));
    const unknownReply = await relay({ mailFrom: finder, rcptTo: ['c-abcdefghijklmnopqrstuvwxyz@relay.localhost'] }, plainMail(headers(), 'Hello?'));
    expect(unknownTag).toMatchObject({ rcptTo: [550], data: undefined });
    expect(unknownReply).toMatchObject({ rcptTo: [550], data: undefined });

    // A retired tag (its owner erased their account) answers exactly as an unknown one.
    const leaving = await newOwner(true);
    const retired = leaving.code;
    expect((await call('DELETE', '/user', { token: leaving.token, body: { password: leaving.password } })).status).toBe(200);
    await expectEventually(async () => {
      const refused = await relay({ mailFrom: finder, rcptTo: [tagAddress(retired)] }, plainMail(headers(), 'Hello?'));
      expect(refused.rcptTo).toEqual([550]);
      expect(refused.rcptReplies).toEqual(unknownTag.rcptReplies);
      // Slowly: each refusal counts against this address's unknown-code limit, as on the web.
    }, { timeoutMs: 15_000, intervalMs: 1000 });

    // A message over 256 KB is refused whole.
    const big = await relay({ mailFrom: finder, rcptTo: [tagAddress(code)] }, plainMail(headers({ Subject: 'Photos' }), 'x'.repeat(300 * 1024)));
    expect(big.data).toBe(552);

    // Nothing reached the owner's thread, and nobody was acknowledged.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await thread(code, owner.token)).toEqual([]);
    expect(stack.mail.mailsTo(finder)).toEqual([]);
  });
});
