import { randomUUID } from 'node:crypto';
import type { CreateMessageResponse, HandoverCode, Message } from '@homing/contracts';
import { expectEventually } from '@homing/testing';
import { apiExchange, type ApiCaller } from '../support/api';
import { mailWithSubject, ownerWithItem, relayMail, replyToOf, tagAddress } from '../support/relay';
import { plainMail, smtpSend, smtpSession } from '../support/smtp-client';
import { stackForSuite } from '../support/stack';

// The relay as sending servers meet it: several mails over one connection (each only to its own recipients), reply
// addresses of conversations that take no more mail (refused for good, not retried for days), a mail delivered to
// one recipient of two (taken, not bounced), a mail retried after messaging forgot it, a From header without an
// address, and a mail retried through an outage of messaging (its tries do not use up the sender's hour).
describe('the mail relay: connections, closed conversations and retries', () => {
  const stack = stackForSuite({ relay: true });
  const call = <T = unknown>(method: string, path: string, options: ApiCaller = {}) => apiExchange<T>(stack, method, path, options);
  const contents = async (code: string, token: string) => (await call<Message[]>('GET', `/items/${code}/messages`, { token })).body.map((message) => [message.author, message.content]);
  const mail = (from: string, to: string, text: string) => plainMail({ From: from, To: to, Subject: 'Found', 'Message-ID': `<${randomUUID()}@example.test>` }, text);
  const finderAddress = () => `finder-${randomUUID()}@example.test`;
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1000));

  it('takes each mail of a connection to its own recipients: not to an earlier mail’s, not after RSET, and counts 5 recipients a mail', async () => {
    const [first, second, third] = [await ownerWithItem(stack), await ownerWithItem(stack), await ownerWithItem(stack)];
    // An owner's reply address first: a later stranger's mail must not be posted as that owner.
    expect((await call<CreateMessageResponse>('POST', `/items/${first.code}/messages`, { body: { content: 'I found your keys.' } })).status).toBe(201);
    const ownerReplyAddress = replyToOf(await mailWithSubject(stack, first.email, 'Someone wrote about your lost item'));
    const stranger = finderAddress();
    const smtp = await smtpSession(stack.relaySmtpPort as number);
    try {
      expect(await smtp.command(`MAIL FROM:<${first.email}>`)).toMatch(/^250/);
      expect(await smtp.command(`RCPT TO:<${ownerReplyAddress}>`)).toMatch(/^250/);
      expect(await smtp.data(mail(first.email, ownerReplyAddress, 'Owner: thank you!'))).toMatch(/^250/);
      expect(await smtp.command(`MAIL FROM:<${stranger}>`)).toMatch(/^250/);
      expect(await smtp.command(`RCPT TO:<${tagAddress(second.code)}>`)).toMatch(/^250/);
      expect(await smtp.data(mail(stranger, tagAddress(second.code), 'Stranger: a mail for the second owner only.'))).toMatch(/^250/);
      // A recipient given, then reset: the next mail goes to the third owner alone.
      expect(await smtp.command(`MAIL FROM:<${stranger}>`)).toMatch(/^250/);
      expect(await smtp.command(`RCPT TO:<${tagAddress(second.code)}>`)).toMatch(/^250/);
      expect(await smtp.command('RSET')).toMatch(/^250/);
      expect(await smtp.command(`MAIL FROM:<${stranger}>`)).toMatch(/^250/);
      expect(await smtp.command(`RCPT TO:<${tagAddress(third.code)}>`)).toMatch(/^250/);
      expect(await smtp.data(mail(stranger, tagAddress(third.code), 'Only for the third owner, after the reset.'))).toMatch(/^250/);
    } finally {
      smtp.close();
    }
    await expectEventually(async () => expect(await contents(third.code, third.token)).toEqual([['finder', 'Only for the third owner, after the reset.']]), { timeoutMs: 5000 });
    await settle();
    expect(await contents(first.code, first.token)).toEqual([
      ['finder', 'I found your keys.'],
      ['owner', 'Owner: thank you!'],
    ]);
    expect(await contents(second.code, second.token)).toEqual([['finder', 'Stranger: a mail for the second owner only.']]);

    // Six mails of one recipient each over one connection: the limit of 5 recipients is a mail's, not the connection's.
    const owners = await Promise.all(Array.from({ length: 6 }, () => ownerWithItem(stack)));
    const again = await smtpSession(stack.relaySmtpPort as number);
    const answers: string[] = [];
    try {
      for (const owner of owners) {
        await again.command(`MAIL FROM:<${stranger}>`);
        answers.push((await again.command(`RCPT TO:<${tagAddress(owner.code)}>`)).slice(0, 3));
        await again.command('RSET');
      }
    } finally {
      again.close();
    }
    expect(answers).toEqual(Array(6).fill('250'));
  });

  it('refuses for good (5xx, not 451 for days) a reply address whose finder left, or whose conversation was handed over', async () => {
    const owner = await ownerWithItem(stack);
    const left = (await call<CreateMessageResponse>('POST', `/items/${owner.code}/messages`, { body: { content: 'I found your keys, where can I leave them?' } })).body.finder_token as string;
    const leftReplyAddress = replyToOf(await mailWithSubject(stack, owner.email, 'Someone wrote about your lost item'));
    expect((await call('DELETE', `/items/${owner.code}/conversation`, { finderToken: left })).status).toBe(204);
    const toLeft = await smtpSend(stack.relaySmtpPort as number, { mailFrom: owner.email, rcptTo: [leftReplyAddress] }, mail(owner.email, leftReplyAddress, 'Thanks, at the desk please.'));
    expect(toLeft.rcptReplies[0]).toMatch(/^550 5\.7\.1 /);

    const other = await ownerWithItem(stack);
    const handedOver = (await call<CreateMessageResponse>('POST', `/items/${other.code}/messages`, { body: { content: 'I have your keys.' } })).body.finder_token as string;
    const closedReplyAddress = replyToOf(await mailWithSubject(stack, other.email, 'Someone wrote about your lost item'));
    const { body: today } = await call<HandoverCode>('GET', `/user/items/${other.code}/handover-code`, { token: other.token });
    expect((await call('POST', `/items/${other.code}/handover`, { finderToken: handedOver, body: { code: today.code } })).status).toBe(200);
    const toClosed = await smtpSend(stack.relaySmtpPort as number, { mailFrom: other.email, rcptTo: [closedReplyAddress] }, mail(other.email, closedReplyAddress, 'Thanks!'));
    expect(toClosed.rcptReplies[0]).toMatch(/^550 5\.7\.1 /);
  });

  it('answers 250 for a mail posted to one recipient when another’s conversation closed after RCPT TO (no bounce of what was delivered)', async () => {
    const owner = await ownerWithItem(stack);
    const other = await ownerWithItem(stack);
    const finderToken = (await call<CreateMessageResponse>('POST', `/items/${other.code}/messages`, { body: { content: 'I have your keys.' } })).body.finder_token as string;
    const closingReplyAddress = replyToOf(await mailWithSubject(stack, other.email, 'Someone wrote about your lost item'));
    const smtp = await smtpSession(stack.relaySmtpPort as number);
    try {
      expect(await smtp.command(`MAIL FROM:<${other.email}>`)).toMatch(/^250/);
      expect(await smtp.command(`RCPT TO:<${tagAddress(owner.code)}>`)).toMatch(/^250/);
      expect(await smtp.command(`RCPT TO:<${closingReplyAddress}>`)).toMatch(/^250/);
      // Handed over between RCPT TO and the end of DATA: that conversation takes no more messages.
      const { body: today } = await call<HandoverCode>('GET', `/user/items/${other.code}/handover-code`, { token: other.token });
      expect((await call('POST', `/items/${other.code}/handover`, { finderToken, body: { code: today.code } })).status).toBe(200);
      expect(await smtp.data(mail(other.email, tagAddress(owner.code), 'Your keys are at the front desk.'))).toMatch(/^250/);
    } finally {
      smtp.close();
    }
    await expectEventually(async () => expect(await contents(owner.code, owner.token)).toEqual([['finder', 'Your keys are at the front desk.']]), { timeoutMs: 5000 });
    await settle();
    expect(await contents(other.code, other.token)).toEqual([['finder', 'I have your keys.']]);
  });

  it('adds nothing for a mail retried after messaging’s idempotency key expired (24 h): the relay knows it for the retries’ days', async () => {
    const owner = await ownerWithItem(stack);
    const finder = finderAddress();
    const retried = mail(finder, tagAddress(owner.code), 'I found your keys by the river.');
    expect((await smtpSend(stack.relaySmtpPort as number, { mailFrom: finder, rcptTo: [tagAddress(owner.code)] }, retried)).data).toBe(250);
    await expectEventually(async () => expect(await contents(owner.code, owner.token)).toHaveLength(1), { timeoutMs: 5000 });
    // A day and an hour later, as far as messaging can tell: its key for the mail is past its window.
    const aged = await stack.db.query(
      `UPDATE "${stack.schemaOf('messaging')}".idempotency_keys SET created_at = created_at - interval '25 hours' WHERE scope LIKE 'messaging.relay-message:%'`,
    );
    expect(aged.rowCount).toBeGreaterThan(0);
    // The sending server never saw the 250 and tries again, as it does for up to five days.
    expect((await smtpSend(stack.relaySmtpPort as number, { mailFrom: finder, rcptTo: [tagAddress(owner.code)] }, retried)).data).toBe(250);
    await settle();
    expect(await contents(owner.code, owner.token)).toEqual([['finder', 'I found your keys by the river.']]);
  });

  it('takes the envelope’s sender when the From header names no address', async () => {
    const owner = await ownerWithItem(stack);
    const finder = finderAddress();
    const sent = await relayMail(stack, { mailFrom: finder, rcptTo: [tagAddress(owner.code)] }, { From: 'Sam Finder', To: tagAddress(owner.code), Subject: 'Keys' }, 'I found your keys at the station.');
    expect(sent.data).toBe(250);
    await expectEventually(async () => expect(await contents(owner.code, owner.token)).toHaveLength(1), { timeoutMs: 5000 });
    // The acknowledgement goes to the envelope's sender.
    await expectEventually(async () => expect(stack.mail.mailsTo(finder)).toHaveLength(1), { timeoutMs: 5000 });
  });

  it('counts the sending host per tag: one host sending under a new From each time is refused 450 at its 21st mail, another host is not', async () => {
    const owner = await ownerWithItem(stack);
    const other = await ownerWithItem(stack);
    const send = (to: string, localAddress: string) => {
      const from = finderAddress();
      return relayMail(stack, { mailFrom: from, rcptTo: [to] }, { From: from, To: to, Subject: 'Found' }, `Found your keys (${randomUUID()}).`, { localAddress });
    };
    // 20 is the hourly limit of one writer for a tag; the From is forged anew for every mail.
    const answers: Array<number | undefined> = [];
    for (let index = 0; index < 21; index += 1) answers.push((await send(tagAddress(owner.code), '127.0.0.2')).data);
    expect(answers.slice(0, 20)).toEqual(Array<number>(20).fill(250));
    expect(answers[20]).toBe(450);
    const refused = await send(tagAddress(owner.code), '127.0.0.2');
    expect(refused.data).toBe(450);
    expect(refused.transcript.find((line) => line.startsWith('450'))).toMatch(/^450 4\.7\.1 Too many messages for this tag/);
    // Another host still writes to the tag, and the same host to another tag.
    expect((await send(tagAddress(owner.code), '127.0.0.3')).data).toBe(250);
    expect((await send(tagAddress(other.code), '127.0.0.2')).data).toBe(250);
    await expectEventually(async () => expect(await contents(owner.code, owner.token)).toHaveLength(21));
  });

  it('lets an owner answer several finders by mail from one host as the web lets them from one address: 20 an hour for the tag', async () => {
    const owner = await ownerWithItem(stack);
    const finders = Array.from({ length: 4 }, () => finderAddress());
    for (const [index, finder] of finders.entries()) {
      expect((await relayMail(stack, { mailFrom: finder, rcptTo: [tagAddress(owner.code)] }, { From: finder, Subject: 'Found' }, `I found your keys (${index}).`, { localAddress: `127.0.0.${20 + index}` })).data).toBe(250);
    }
    // One e-mail to the owner for each new conversation, each with that conversation's reply address.
    const replyAddresses = await expectEventually(() => {
      const addresses = new Set(stack.mail.mailsTo(owner.email).filter((mail) => mail.subject === 'Someone wrote about your lost item').map(replyToOf));
      expect(addresses.size).toBe(finders.length);
      return [...addresses];
    });
    // The owner answers every finder five times from their provider's one host: 20, all taken.
    const answers: Array<number | undefined> = [];
    for (let round = 0; round < 5; round += 1) {
      for (const address of replyAddresses) {
        answers.push((await relayMail(stack, { mailFrom: owner.email, rcptTo: [address] }, { From: owner.email, Subject: 'Re: Found' }, `Thank you (${round}).`, { localAddress: '127.0.0.30' })).data);
      }
    }
    expect(answers).toEqual(Array<number>(20).fill(250));
    // The 21st for the tag in the hour waits (450), as the 21st message from one address on the web does (429).
    expect((await relayMail(stack, { mailFrom: owner.email, rcptTo: [replyAddresses[0]] }, { From: owner.email, Subject: 'Re: Found' }, 'One more thing.', { localAddress: '127.0.0.30' })).data).toBe(450);
    await expectEventually(async () => expect((await contents(owner.code, owner.token)).filter(([author]) => author === 'owner')).toHaveLength(20));
  });

  it('gives a try answered 451 back to the sender’s hour: a mail retried through an outage of messaging is taken once it is back', async () => {
    const owner = await ownerWithItem(stack);
    const itemCode = owner.code.replace(/-/g, '').toUpperCase();
    const finder = finderAddress();
    const retried = mail(finder, tagAddress(owner.code), 'I found your keys at the station.');
    const messaging = stack.services.get('messaging');
    if (!messaging) throw new Error('no messaging in the stack');
    await messaging.stop();
    // Recipients are still answered (as by a replica that is up); the message itself cannot be written.
    const recipients = stack.nc.subscribe(`${stack.namespace}.messaging.rpc.relay-recipient`, { callback: (_error, message) => void message.respond(JSON.stringify({ itemCode })) });
    await stack.nc.flush();
    const answers: Array<number | undefined> = [];
    try {
      // 20 is the sender's hourly limit for a tag.
      for (let attempt = 0; attempt < 20; attempt += 1) answers.push((await smtpSend(stack.relaySmtpPort as number, { mailFrom: finder, rcptTo: [tagAddress(owner.code)] }, retried)).data);
    } finally {
      recipients.unsubscribe();
      await messaging.start();
    }
    expect(new Set(answers)).toEqual(new Set([451]));
    const retry = await smtpSend(stack.relaySmtpPort as number, { mailFrom: finder, rcptTo: [tagAddress(owner.code)] }, retried);
    expect(retry.data).toBe(250);
    await expectEventually(async () => expect(await contents(owner.code, owner.token)).toHaveLength(1));
  });
});
