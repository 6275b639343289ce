import { Logger } from '@nestjs/common';
import { ResponseCode, type RelayRecipient } from '@homing/contracts';
import { RpcError, RpcUnavailableError, type RpcClient } from '@homing/platform';
import type { SenderAuthenticator } from '../authentication/sender-authenticator';
import type { SenderVerdict } from '../authentication/sender-policy';
import type { MailRelayConfig } from '../config/mail-relay.config';
import { MailRelayService, type ReceivedMail, type RelayTarget } from './mail-relay.service';
import type { RelayLimits } from './relay-limits';
import type { RelayedMailsRepository } from './relayed-mails.repository';

const FIRST: RelayTarget = { recipient: { kind: 'tag', code: 'ABCDEFGHJKMNPQRS' }, itemCode: 'ABCDEFGHJKMNPQRS' };
const SECOND: RelayTarget = { recipient: { kind: 'reply', token: 'abcdefghijklmnopqrstuvwxyz' }, itemCode: 'TUVWXYZ234567ABC' };
// The SMTP client's address: the sending host.
const HOST = '2001:db8:1:2::25';
const MAIL: ReceivedMail = { raw: Buffer.from('From: sam@example.test\r\n\r\nI found your keys.'), headers: { get: () => undefined, has: () => false }, messageId: '<m1@example.test>', from: 'sam@example.test', subject: 'Keys', text: 'I found your keys.', attachmentNames: [] };

const closed = () => RpcError.conflict(ResponseCode.CONVERSATION_CLOSED, 'closed');
const gone = () => RpcError.notFound(ResponseCode.NOT_FOUND, 'No such recipient.');
const away = () => new RpcUnavailableError('messaging.rpc.relay-message');
const posts = () => undefined;

/** The relay with messaging answering each recipient as told (a message, or an error), and an empty memory of mails. */
function relayWith(answers: Array<[RelayTarget, () => Error | undefined]>, relayedBefore: RelayRecipient[] = [], { verdict = 'authenticated' as SenderVerdict, senderAuthentication = 'required' } = {}) {
  const posted: RelayRecipient[] = [];
  const request = jest.fn(async (_subject: string, body: { recipient: RelayRecipient }) => {
    const [target, answer] = answers.find(([candidate]) => candidate.recipient === body.recipient) as [RelayTarget, () => Error | undefined];
    const error = answer();
    if (error) throw error;
    posted.push(body.recipient);
    return { itemCode: target.itemCode, conversationId: 'c1', messageId: posted.length, author: 'finder' };
  });
  const refund = jest.fn(async () => undefined);
  const admitMessage = jest.fn(async () => ({ waitMs: 0, refund }));
  const remembered: RelayRecipient[] = [];
  const relayedMails = {
    wasRelayed: jest.fn(async (mail: { recipient: RelayRecipient }) => relayedBefore.includes(mail.recipient)),
    remember: jest.fn(async (mail: { recipient: RelayRecipient }) => void remembered.push(mail.recipient)),
  };
  const verify = jest.fn(async () => verdict);
  const service = new MailRelayService(
    { request } as unknown as RpcClient,
    { admitMessage } as unknown as RelayLimits,
    relayedMails as unknown as RelayedMailsRepository,
    { verify } as unknown as SenderAuthenticator,
    { RELAY_DOMAIN: 'relay.example', RELAY_SENDER_AUTHENTICATION: senderAuthentication } as MailRelayConfig,
  );
  return { service, posted, remembered, request, admitMessage, refund, relayedMails, verify };
}

describe('MailRelayService.deliver', () => {
  let warnings: jest.SpyInstance;
  beforeEach(() => {
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it('takes a mail (250) that reached one recipient when a later one is refused for good, and logs the one refused', async () => {
    const { service, posted } = relayWith([[FIRST, posts], [SECOND, closed]]);
    await expect(service.deliver(MAIL, 'sam@example.test', [FIRST, SECOND], HOST)).resolves.toBeUndefined();
    expect(posted).toEqual([FIRST.recipient]);
    expect(warnings).toHaveBeenCalledWith(expect.stringMatching(/^mail not relayed to one of its recipients \(tag TUVW…\): CONVERSATION_CLOSED/));
  });

  it('still relays to the later recipients when an earlier one is refused for good', async () => {
    const { service, posted } = relayWith([[FIRST, gone], [SECOND, posts]]);
    await expect(service.deliver(MAIL, 'sam@example.test', [FIRST, SECOND], HOST)).resolves.toBeUndefined();
    expect(posted).toEqual([SECOND.recipient]);
  });

  it('refuses the mail (5xx) when every recipient refuses it for good', async () => {
    const { service } = relayWith([[FIRST, closed], [SECOND, gone]]);
    await expect(service.deliver(MAIL, 'sam@example.test', [FIRST, SECOND], HOST)).rejects.toMatchObject({ responseCode: 550, message: '5.7.1 This conversation takes no more mail' });
  });

  it('answers 451 for the whole mail when messaging is away for a later recipient, giving that try’s count back', async () => {
    const { service, posted, refund } = relayWith([[FIRST, posts], [SECOND, away]]);
    await expect(service.deliver(MAIL, 'sam@example.test', [FIRST, SECOND], HOST)).rejects.toMatchObject({ responseCode: 451 });
    expect(posted).toEqual([FIRST.recipient]);
    expect(refund).toHaveBeenCalledTimes(1);
  });

  it('remembers each recipient it relayed to, and on a retry posts (and counts) only the others', async () => {
    const first = relayWith([[FIRST, posts], [SECOND, away]]);
    await expect(first.service.deliver(MAIL, 'sam@example.test', [FIRST, SECOND], HOST)).rejects.toMatchObject({ responseCode: 451 });
    expect(first.remembered).toEqual([FIRST.recipient]);
    expect(first.relayedMails.remember).toHaveBeenCalledWith({ recipient: FIRST.recipient, mailId: expect.any(String), from: 'sam@example.test', content: 'I found your keys.' });

    const retry = relayWith([[FIRST, posts], [SECOND, posts]], first.remembered);
    await expect(retry.service.deliver(MAIL, 'sam@example.test', [FIRST, SECOND], HOST)).resolves.toBeUndefined();
    expect(retry.posted).toEqual([SECOND.recipient]);
    expect(retry.admitMessage).toHaveBeenCalledTimes(1);
    // The same mail is known by the same id on every try.
    expect(retry.relayedMails.wasRelayed.mock.calls[0][0]).toEqual(first.relayedMails.remember.mock.calls[0][0]);
  });

  it('counts each recipient’s message against its tag with the sender’s address and the sending host’s', async () => {
    const { service, admitMessage } = relayWith([[FIRST, posts], [SECOND, posts]]);
    await expect(service.deliver(MAIL, 'sam@example.test', [FIRST, SECOND], HOST)).resolves.toBeUndefined();
    expect(admitMessage.mock.calls).toEqual([
      [FIRST.itemCode, 'sam@example.test', HOST],
      [SECOND.itemCode, 'sam@example.test', HOST],
    ]);
  });

  it('remembers nothing it did not relay', async () => {
    const { service, remembered } = relayWith([[FIRST, closed], [SECOND, away]]);
    await expect(service.deliver(MAIL, 'sam@example.test', [FIRST, SECOND], HOST)).rejects.toMatchObject({ responseCode: 451 });
    expect(remembered).toEqual([]);
  });

  describe('the sender of a mail to a tag', () => {
    it('is checked with the mail as received, the envelope sender, the host and the address taken as the finder’s', async () => {
      const { service, posted, verify } = relayWith([[FIRST, posts]]);
      await expect(service.deliver(MAIL, 'bounces@mailer.example.test', [FIRST], HOST)).resolves.toBeUndefined();
      expect(verify).toHaveBeenCalledWith({ raw: MAIL.raw, envelopeSender: 'bounces@mailer.example.test', clientAddress: HOST, finderAddress: 'sam@example.test' });
      expect(posted).toEqual([FIRST.recipient]);
    });

    it('refuses the mail (550 5.7.26) when its domain is not authenticated, pointing to the tag’s page; nothing counted nor posted', async () => {
      const { service, posted, admitMessage, relayedMails } = relayWith([[FIRST, posts]], [], { verdict: 'forged' });
      const refused = service.deliver(MAIL, 'sam@example.test', [FIRST], HOST);
      await expect(refused).rejects.toMatchObject({ responseCode: 550, message: expect.stringMatching(/^5\.7\.26 .*example\.test.*page the tag's QR code opens/) });
      expect(posted).toEqual([]);
      expect(admitMessage).not.toHaveBeenCalled();
      expect(relayedMails.wasRelayed).not.toHaveBeenCalled();
    });

    it('takes a mail to a tag and a reply address from a sender that fails for the reply address alone (its token is the proof)', async () => {
      const { service, posted, admitMessage } = relayWith([[FIRST, posts], [SECOND, posts]], [], { verdict: 'forged' });
      await expect(service.deliver(MAIL, 'sam@example.test', [FIRST, SECOND], HOST)).resolves.toBeUndefined();
      expect(posted).toEqual([SECOND.recipient]);
      expect(admitMessage).toHaveBeenCalledTimes(1);
      expect(admitMessage).toHaveBeenCalledWith(SECOND.itemCode, 'sam@example.test', HOST);
    });

    it('refuses with 550 5.7.26 a mixed mail from a sender that fails when its reply address is gone too', async () => {
      const { service, posted } = relayWith([[FIRST, posts], [SECOND, gone]], [], { verdict: 'forged' });
      await expect(service.deliver(MAIL, 'sam@example.test', [FIRST, SECOND], HOST)).rejects.toMatchObject({ responseCode: 550, message: expect.stringMatching(/^5\.7\.26 /) });
      expect(posted).toEqual([]);
    });

    it('answers 451 4.4.3 when DNS failed on the way, for the sender to retry; nothing counted nor posted', async () => {
      const { service, posted, admitMessage } = relayWith([[FIRST, posts]], [], { verdict: 'unverifiable' });
      await expect(service.deliver(MAIL, 'sam@example.test', [FIRST], HOST)).rejects.toMatchObject({ responseCode: 451, message: expect.stringMatching(/^4\.4\.3 /) });
      expect(posted).toEqual([]);
      expect(admitMessage).not.toHaveBeenCalled();
    });

    it('quotes no domain in the refusal that is not plainly one', async () => {
      const { service } = relayWith([[FIRST, posts]], [], { verdict: 'forged' });
      await expect(service.deliver({ ...MAIL, from: 'sam@exa\r\nmple.test' }, 'sam@example.test', [FIRST], HOST)).rejects.toMatchObject({
        message: expect.stringMatching(/^5\.7\.26 This relay could not verify that this mail comes from its sender;/),
      });
    });

    it('is not checked for a mail to reply addresses only (their token is the proof), nor when the setting is off', async () => {
      const toReply = relayWith([[FIRST, posts], [SECOND, posts]], [], { verdict: 'forged' });
      // The same sender to a tag: refused.
      await expect(toReply.service.deliver(MAIL, 'sam@example.test', [FIRST], HOST)).rejects.toMatchObject({ responseCode: 550 });
      toReply.verify.mockClear();
      await expect(toReply.service.deliver(MAIL, 'sam@example.test', [SECOND], HOST)).resolves.toBeUndefined();
      expect(toReply.verify).not.toHaveBeenCalled();
      expect(toReply.posted).toEqual([SECOND.recipient]);

      const off = relayWith([[FIRST, posts]], [], { verdict: 'forged', senderAuthentication: 'off' });
      await expect(off.service.deliver(MAIL, 'sam@example.test', [FIRST], HOST)).resolves.toBeUndefined();
      expect(off.verify).not.toHaveBeenCalled();
      expect(off.posted).toEqual([FIRST.recipient]);
    });

    it('is not checked for a bounce or an auto-reply, which are dropped as before', async () => {
      const { service, verify, posted } = relayWith([[FIRST, posts]], [], { verdict: 'forged' });
      await expect(service.deliver(MAIL, 'sam@example.test', [FIRST], HOST)).rejects.toMatchObject({ responseCode: 550 });
      verify.mockClear();
      await expect(service.deliver(MAIL, null, [FIRST], HOST)).resolves.toBeUndefined();
      const autoReply: ReceivedMail = { ...MAIL, headers: { get: (name) => (name === 'auto-submitted' ? 'auto-replied' : undefined), has: (name) => name === 'auto-submitted' } };
      await expect(service.deliver(autoReply, 'sam@example.test', [FIRST], HOST)).resolves.toBeUndefined();
      expect(verify).not.toHaveBeenCalled();
      expect(posted).toEqual([]);
    });
  });
});
