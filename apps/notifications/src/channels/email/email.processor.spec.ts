import type { Job } from 'bullmq';
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
