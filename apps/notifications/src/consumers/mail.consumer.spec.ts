import type { DomainEvent, EventSubject } from '@homing/contracts';
import type { EmailQueueRepository } from '../jobs/email-queue.repository';
import { FarewellMailConsumer, LoginCodeMailConsumer, WelcomeMailConsumer } from './mail.consumer';

const USER = '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10';

type Consumer<S extends EventSubject> = new (emails: EmailQueueRepository, config: { WELCOME_MAIL_DELAY_MINUTES: number }) => { handle(event: DomainEvent<S>): Promise<void> };

/** What the consumer enqueued for one event of its subject, with WELCOME_MAIL_DELAY_MINUTES 0.5. */
async function enqueuedFor<S extends EventSubject>(Consumer: Consumer<S>, subject: S, data: DomainEvent<S>['data']) {
  const emails = { enqueue: jest.fn(async () => 'job') };
  await new Consumer(emails as unknown as EmailQueueRepository, { WELCOME_MAIL_DELAY_MINUTES: 0.5 }).handle({ id: 'event-1', subject, occurredAt: '2026-11-25T07:00:00.000Z', data } as DomainEvent<S>);
  return emails.enqueue.mock.calls;
}

describe('mail consumers', () => {
  it('holds a new owner’s welcome mail back for activation’s password step', async () => {
    expect(await enqueuedFor(WelcomeMailConsumer, 'identity.user.registered.v1', { userId: USER, passwordToken: 'token' })).toEqual([
      [{ kind: 'welcome', data: { userId: USER, passwordToken: 'token' } }, 'event-1', { delayMs: 30_000 }],
    ]);
  });

  it('sends an erased user their farewell at once, to the address and in the language the event carries', async () => {
    expect(await enqueuedFor(FarewellMailConsumer, 'identity.user.farewell.v1', { email: 'gone@example.test', language: 'nl' })).toEqual([
      [{ kind: 'account-deleted', data: { email: 'gone@example.test', language: 'nl' } }, 'event-1', { delayMs: 0 }],
    ]);
  });

  it('sends a login code at once', async () => {
    expect(await enqueuedFor(LoginCodeMailConsumer, 'identity.login-code.requested.v1', { userId: USER, code: '123456' })).toEqual([
      [{ kind: 'login-code', data: { userId: USER, code: '123456' } }, 'event-1', { delayMs: 0 }],
    ]);
  });
});
