import { randomUUID } from 'node:crypto';
import { ResponseCode } from '@homing/contracts';
import { expectEventually } from '@homing/testing';
import { reportFigure, sized } from '../fault/harness/figures';
import { apiCall } from '../support/api';
import { mailWithSubject, ownerWithItem, relayMail, replyToOf, tagAddress } from '../support/relay';
import { startStack, type Stack } from '../support/stack';

// A7 and P5: the e-mail relay under a flood and robots' mail, and the reply addresses and resume links of erased
// conversations. Real SMTP on the loopback into the relay of a whole stack.
describe('the mail relay under abuse (A7, P5)', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ relay: true });
  });

  afterAll(() => stack?.stop());

  const messagesOf = async (code: string): Promise<number> => {
    const { rows } = await stack.db.query<{ count: string }>(
      `SELECT count(*) FROM "${stack.schemaOf('messaging')}".messages m JOIN "${stack.schemaOf('messaging')}".conversations c ON c.id = m.conversation_id WHERE c.item_code = $1`,
      [code.replace(/-/g, '')],
    );
    return Number(rows[0].count);
  };

  it('A7: a flood of mail to one tag stops at the tag’s limits, and robots’ mail starts no loop', async () => {
    const owner = await ownerWithItem(stack);
    const to = tagAddress(owner.code);
    // `host`: the sending host, a loopback address (Linux routes all of 127.0.0.0/8 to lo).
    const mail = (from: string, host = '127.0.0.1') =>
      relayMail(stack, { mailFrom: from, rcptTo: [to] }, { From: from, To: to, Subject: 'Found it' }, `Found your keys (${randomUUID()}).`, { localAddress: host });
    const accepted = (answers: number[]) => answers.filter((code) => code === 250).length;
    const limited = (answers: number[]) => answers.filter((code) => code === 450).length;

    // One sender 30 times: 20 an hour per sender and tag.
    const oneSender = `flooder-${randomUUID()}@example.test`;
    const fromOne: number[] = [];
    for (let index = 0; index < 30; index++) fromOne.push((await mail(oneSender)).data ?? 0);
    // One host 30 times, under a new (forged) From each time: 20 an hour per sending host and tag too.
    const fromForged: number[] = [];
    for (let index = 0; index < 30; index++) fromForged.push((await mail(`forged-${index}-${randomUUID()}@example.test`, '127.0.0.2')).data ?? 0);
    // Then many senders on many hosts (10 a host, each under its limits), until far past the tag's 200 an hour.
    const many = sized(230, 970);
    const perHost = 10;
    const fromMany: number[] = [];
    for (let index = 0; index < many; index++) fromMany.push((await mail(`sender-${index}-${randomUUID()}@example.test`, `127.0.0.${10 + Math.floor(index / perHost)}`)).data ?? 0);
    const all = [...fromOne, ...fromForged, ...fromMany];
    expect(accepted(fromOne)).toBe(20);
    expect(accepted(fromForged)).toBe(20);
    // The tag counts every write it was asked for, refused ones included, as on the web (A4): 60 before the many (the
    // one sender's and the one host's 20 refused among them), so 140 of the many are taken, 180 messages in all.
    expect(accepted(fromMany)).toBe(140);
    expect(accepted(all)).toBe(180);
    expect(accepted(all) + limited(all)).toBe(60 + many);
    await expectEventually(async () => expect(await messagesOf(owner.code)).toBe(accepted(all)));

    // Robots: auto-replies and bounces to the tag, and to the reply address of an acknowledgement (where a vacation
    // responder answers), each taken and dropped; nothing is sent back to them.
    const finder = `finder-${randomUUID()}@example.test`;
    const second = await ownerWithItem(stack);
    expect((await relayMail(stack, { mailFrom: finder, rcptTo: [tagAddress(second.code)] }, { From: finder, Subject: 'Keys' }, 'Found your keys.')).data).toBe(250);
    const acknowledgement = await mailWithSubject(stack, finder, 'Your message reached the owner');
    const replyAddress = replyToOf(acknowledgement);
    const robot = `robot-${randomUUID()}@example.test`;
    const robots = sized(20, 100);
    const answers: number[] = [];
    for (let index = 0; index < robots; index++) {
      const target = index % 2 === 0 ? replyAddress : tagAddress(second.code);
      const kind: Record<string, string> = index % 4 < 2 ? { 'Auto-Submitted': 'auto-replied', Subject: 'Out of office' } : { Subject: 'Undelivered Mail Returned to Sender' };
      const mailFrom = index % 4 < 2 ? robot : '';
      answers.push((await relayMail(stack, { mailFrom, rcptTo: [target] }, { From: robot, ...kind }, 'I am away until Monday.')).data ?? 0);
    }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const added = (await messagesOf(second.code)) - 1;
    const sentBack = stack.mail.mailsTo(robot).length;
    const finderMails = stack.mail.mailsTo(finder).length;
    expect(answers.every((code) => code === 250)).toBe(true);
    expect({ added, sentBack, finderMails }).toEqual({ added: 0, sentBack: 0, finderMails: 1 });

    reportFigure({
      id: 'A7',
      test: `the mail relay flooded: ${60 + many} mails to one tag address (30 from one sender, 30 from one host under as many forged From addresses, ${many} from as many senders on ${Math.ceil(many / perHost)} hosts), then ${robots} auto-replies and bounces to a tag and a reply address`,
      figure: `one sender: ${accepted(fromOne)} accepted, ${limited(fromOne)} refused 450; one host forging From: ${accepted(fromForged)} accepted, ${limited(fromForged)} refused 450 (20 an hour per host and tag); all: ${accepted(all)} messages (tag limit 200 an hour, refused writes counted), ${limited(all)} refused 450; messages past the tag's limits 0; robots' mails turned into messages ${added}, mails sent back to them ${sentBack} (loops 0)`,
      size: `${60 + many} + ${robots} mails`,
      passed: accepted(all) <= 200 && accepted(fromForged) <= 20 && added === 0 && sentBack === 0,
    });
    // A thousand SMTP conversations one after another outlast the suite's two minutes at full size.
  }, sized(120_000, 600_000));

  it('P5: reply addresses and resume links of erased conversations open nothing', async () => {
    const attempts: Array<{ what: string; accepted: boolean }> = [];
    const writeTo = async (what: string, address: string) => {
      const answer = await relayMail(stack, { mailFrom: `someone-${randomUUID()}@example.test`, rcptTo: [address] }, { Subject: 'Re: your item' }, 'Still there?');
      attempts.push({ what, accepted: answer.rcptTo[0] === 250 });
    };
    const resume = async (what: string, code: string, link: string) => {
      const token = new URL(link).searchParams.get('resume') as string;
      const answer = await apiCall<{ response_code: string }>(stack, 'POST', `/items/${code}/finder-resume`, { body: { token } });
      attempts.push({ what, accepted: answer.status !== 422 || answer.body.response_code !== ResponseCode.RESUME_LINK_EXPIRED });
    };
    const linkOf = (text: string) => /https?:\/\/\S+\?resume=[A-Za-z0-9_-]+/.exec(text)?.[0] as string;

    // A conversation by mail, answered once by each side, then erased by the owner's reset.
    const owner = await ownerWithItem(stack);
    const finder = `finder-${randomUUID()}@example.test`;
    expect((await relayMail(stack, { mailFrom: finder, rcptTo: [tagAddress(owner.code)] }, { From: finder, Subject: 'Bike' }, 'I found your bike.')).data).toBe(250);
    const acknowledgement = await mailWithSubject(stack, finder, 'Your message reached the owner');
    const ownerMail = await mailWithSubject(stack, owner.email, 'Someone wrote about your lost item');
    const [finderAddress, ownerAddress] = [replyToOf(acknowledgement), replyToOf(ownerMail)];
    expect((await apiCall(stack, 'POST', `/user/items/${owner.code}/reset`, { token: owner.token })).status).toBe(204);
    await writeTo('finder reply address after reset', finderAddress);
    await writeTo('owner reply address after reset', ownerAddress);
    await resume('resume link after reset', owner.code, linkOf(acknowledgement.text));

    // A finder who deleted their conversation: their addresses and links stop too.
    const second = await ownerWithItem(stack);
    const leaving = `leaving-${randomUUID()}@example.test`;
    expect((await relayMail(stack, { mailFrom: leaving, rcptTo: [tagAddress(second.code)] }, { From: leaving, Subject: 'Bag' }, 'I found your bag.')).data).toBe(250);
    const theirs = await mailWithSubject(stack, leaving, 'Your message reached the owner');
    const session = await apiCall<{ finder_token: string }>(stack, 'POST', `/items/${second.code}/finder-resume`, { body: { token: new URL(linkOf(theirs.text)).searchParams.get('resume') } });
    expect(session.status).toBe(200);
    expect((await apiCall(stack, 'DELETE', `/items/${second.code}/conversation`, { finderToken: session.body.finder_token })).status).toBe(204);
    await writeTo('finder reply address after the finder left', replyToOf(theirs));
    await resume('resume link after the finder left', second.code, linkOf(theirs.text));

    const accepted = attempts.filter((attempt) => attempt.accepted);
    expect(accepted).toEqual([]);
    reportFigure({
      id: 'P5',
      test: 'reply-by-mail addresses (finder and owner) and resume links of conversations erased by a reset or by the finder',
      figure: `still accepted: ${accepted.length} of ${attempts.length} (${attempts.map((attempt) => attempt.what).join('; ')})`,
      size: `${attempts.length} attempts`,
      passed: accepted.length === 0,
    });
  });
});
