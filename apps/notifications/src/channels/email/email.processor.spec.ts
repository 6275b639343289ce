import { UnrecoverableError, type Job } from 'bullmq';
import { ResponseCode } from '@homing/contracts';
import { RpcError } from '@homing/platform';
import type { StoredEmailJobData } from '../../jobs/email-jobs';
import { EMAIL_JOBS } from '../../persisted-names';
import { EmailProcessor } from './email.processor';

// The order of a run's first asks (B3: each is a round trip before the mail goes): the delivery row's claim and whether
// the person is still told side by side; the address only after both.
describe('EmailProcessor, a run’s first asks', () => {
  const userId = '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10';
  const job = (): Job<StoredEmailJobData> =>
    ({ id: `email_event-1_${userId}`, name: EMAIL_JOBS.newMessage, data: { userId, tagCode: 'ABCDEFGHJKMNPQRS' }, attemptsMade: 0, opts: { attempts: 5 }, updateData: jest.fn(async () => undefined) }) as unknown as Job<StoredEmailJobData>;

  function processorWith(standing: () => Promise<string>) {
    const asked: string[] = [];
    let claimed!: () => void;
    const deliveries = {
      // The claim answers only once the standing was asked: a run that waited for the claim first would never finish.
      claim: jest.fn(() => {
        asked.push('claim');
        return new Promise((resolve) => (claimed = () => resolve({ outcome: 'claimed' })));
      }),
      markSkipped: jest.fn(async () => undefined),
      release: jest.fn(async () => undefined),
      forget: jest.fn(async () => undefined),
    };
    const itemRecipients = {
      emailStanding: jest.fn(() => {
        asked.push('standing');
        const answer = standing();
        claimed();
        return answer;
      }),
    };
    const rpc = { request: jest.fn(async () => ({ email: 'owner@example.com', language: 'en' })) };
    const processor = new EmailProcessor({ DELIVERY_CLAIM_SECONDS: 60 } as never, rpc as never, {} as never, {} as never, deliveries as never, {} as never, itemRecipients as never);
    return { processor, deliveries, rpc, asked };
  }

  it('claims the delivery row and asks whether the person is still told side by side, then skips a person with e-mail off', async () => {
    const { processor, deliveries, rpc, asked } = processorWith(async () => 'email-off');
    await processor.process(job(), 'token');
    expect(asked).toEqual(['claim', 'standing']);
    expect(deliveries.markSkipped).toHaveBeenCalledWith(expect.objectContaining({ jobId: `email_event-1_${userId}` }), 'e-mail turned off for the item');
    // Nobody told costs no lookup of their address.
    expect(rpc.request).not.toHaveBeenCalled();
  });

  it('ends its claim and fails the run when the standing could not be read', async () => {
    const { processor, deliveries, rpc } = processorWith(async () => {
      throw new Error('connection terminated');
    });
    await expect(processor.process(job(), 'token')).rejects.toThrow('connection terminated');
    expect(deliveries.release).toHaveBeenCalledTimes(1);
    expect(rpc.request).not.toHaveBeenCalled();
  });
});

// After the claim and the standing, the asks that stand between a job and its mail (B3): an owner's address and the
// unread check side by side; a finder's address and their mail's links in one round trip.
describe('EmailProcessor, the lookups before a mail goes', () => {
  const ownerId = '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10';
  const conversationId = '5f0c2d8e-8a51-4c1e-9d7b-2b6f7e9a0c11';
  const jobOf = (name: string, data: object): Job<StoredEmailJobData> =>
    ({ id: `email_event-1_${ownerId}`, name, data, attemptsMade: 0, opts: { attempts: 5 }, updateData: jest.fn(async () => undefined) }) as unknown as Job<StoredEmailJobData>;

  function processorAnswering(answer: (subject: string, request: Record<string, unknown>) => Promise<unknown>) {
    const asked: string[] = [];
    const deliveries = {
      claim: jest.fn(async () => ({ outcome: 'claimed' })),
      markSkipped: jest.fn(async () => undefined),
      release: jest.fn(async () => undefined),
      forget: jest.fn(async () => undefined),
    };
    const rpc = {
      request: jest.fn((subject: string, request: Record<string, unknown>) => {
        asked.push(subject);
        return answer(subject, request);
      }),
    };
    const renderer = { render: jest.fn((_mail: unknown, _language: string, context: Record<string, unknown>) => ({ subject: 's', text: 't', html: 'h', context })) };
    const smtp = { send: jest.fn(async () => undefined) };
    const receipts = { sent: jest.fn(async () => undefined) };
    const itemRecipients = { emailStanding: jest.fn(async () => 'told') };
    const config = { DELIVERY_CLAIM_SECONDS: 60, RELAY_DOMAIN: 'relay.example.test' };
    const processor = new EmailProcessor(config as never, rpc as never, renderer as never, smtp as never, deliveries as never, receipts as never, itemRecipients as never);
    return { processor, rpc, asked, deliveries, renderer, smtp };
  }

  it('asks for an owner’s address and whether the message is still unread side by side, and mails the reply address minted with the check', async () => {
    let unreadAsked!: () => void;
    const unreadSeen = new Promise<void>((resolve) => (unreadAsked = resolve));
    const { processor, smtp } = processorAnswering(async (subject) => {
      // The address answers only once the unread check was asked: a run that waited for the address first would hang.
      if (subject === 'identity.rpc.get-user') return unreadSeen.then(() => ({ email: 'owner@example.test', language: 'en' }));
      unreadAsked();
      return { latestUnreadMessageId: 7, replyToken: 'ownertoken' };
    });
    await processor.process(jobOf(EMAIL_JOBS.newMessage, { userId: ownerId, tagCode: 'ABCDEFGHJKMNPQRS', conversationId, messageId: 7 }), 'token');
    expect(smtp.send).toHaveBeenCalledWith('owner@example.test', expect.anything(), `email_event-1_${ownerId}`, 'c-ownertoken@relay.example.test');
  });

  it('forgets its row and fails for good when the owner is gone, though the unread check was asked alongside', async () => {
    const { processor, asked, deliveries, smtp } = processorAnswering(async (subject) => {
      if (subject === 'identity.rpc.get-user') throw new RpcError({ status: 404, response_code: ResponseCode.NOT_FOUND, message: 'No such user.' });
      return { latestUnreadMessageId: 7, replyToken: 'ownertoken' };
    });
    await expect(processor.process(jobOf(EMAIL_JOBS.newMessage, { userId: ownerId, tagCode: 'ABCDEFGHJKMNPQRS', conversationId, messageId: 7 }), 'token')).rejects.toBeInstanceOf(UnrecoverableError);
    expect(asked.sort()).toEqual(['identity.rpc.get-user', 'messaging.rpc.unread-since']);
    expect(deliveries.forget).toHaveBeenCalledTimes(1);
    expect(smtp.send).not.toHaveBeenCalled();
  });

  it('ends its claim when the unread check fails, and sends nothing', async () => {
    const { processor, deliveries, smtp } = processorAnswering(async (subject) => {
      if (subject === 'identity.rpc.get-user') return { email: 'owner@example.test', language: 'en' };
      throw new Error('no responders');
    });
    await expect(processor.process(jobOf(EMAIL_JOBS.newMessage, { userId: ownerId, tagCode: 'ABCDEFGHJKMNPQRS', conversationId, messageId: 7 }), 'token')).rejects.toThrow('no responders');
    expect(deliveries.release).toHaveBeenCalledTimes(1);
    expect(smtp.send).not.toHaveBeenCalled();
  });

  it('asks messaging once for a finder’s address and their mail’s links, and mails those links', async () => {
    const { processor, rpc, renderer, smtp } = processorAnswering(async () => ({ email: 'finder@example.test', language: 'nl', resumeToken: 'resume-1', replyToken: 'findertoken' }));
    await processor.process(jobOf(EMAIL_JOBS.ownerReply, { conversationId, tagCode: 'ABCDEFGHJKMNPQRS', messageId: 8 }), 'token');
    expect(rpc.request.mock.calls).toEqual([['messaging.rpc.get-finder-contact', { conversationId, resumeLink: true, replyAddress: true }]]);
    expect(renderer.render).toHaveBeenCalledWith(expect.objectContaining({ kind: EMAIL_JOBS.ownerReply }), 'nl', expect.objectContaining({ email: 'finder@example.test', resumeToken: 'resume-1' }));
    expect(smtp.send).toHaveBeenCalledWith('finder@example.test', expect.anything(), `email_event-1_${ownerId}`, 'c-findertoken@relay.example.test');
  });

  it('forgets its row for a finder who left no address, with nothing minted for them', async () => {
    const { processor, rpc, deliveries, smtp } = processorAnswering(async () => ({ email: null, language: 'en' }));
    await processor.process(jobOf(EMAIL_JOBS.ownerReply, { conversationId, tagCode: 'ABCDEFGHJKMNPQRS', messageId: 8 }), 'token');
    expect(rpc.request).toHaveBeenCalledTimes(1);
    expect(deliveries.forget).toHaveBeenCalledTimes(1);
    expect(smtp.send).not.toHaveBeenCalled();
  });
});
