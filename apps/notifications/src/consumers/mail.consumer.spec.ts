import type { DomainEvent, EventSubject } from '@homing/contracts';
import type { EmailQueueRepository } from '../jobs/email-queue.repository';
import { FarewellMailConsumer, LoginCodeMailConsumer, PasskeyAddedMailConsumer, PasskeyDeletedMailConsumer, WelcomeMailConsumer } from './mail.consumer';

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

  it('tells the owner at once of a passkey added to or deleted from their account, with ids, provider and time only', async () => {
    const passkeyId = '5d0c4a8e-7b1f-4c2a-9e3d-8f6a2b1c0d9e';
    expect(await enqueuedFor(PasskeyAddedMailConsumer, 'identity.passkey.added.v1', { userId: USER, passkeyId, provider: 'iCloud Keychain' })).toEqual([
      [{ kind: 'passkey-added', data: { userId: USER, passkeyId, provider: 'iCloud Keychain', occurredAt: '2026-11-25T07:00:00.000Z' } }, 'event-1', { delayMs: 0 }],
    ]);
    expect(await enqueuedFor(PasskeyDeletedMailConsumer, 'identity.passkey.deleted.v1', { userId: USER, passkeyId, provider: null })).toEqual([
      [{ kind: 'passkey-deleted', data: { userId: USER, passkeyId, provider: null, occurredAt: '2026-11-25T07:00:00.000Z' } }, 'event-1', { delayMs: 0 }],
    ]);
  });

  it('keeps the passkey mails on durables of their own, worth sending a day late but not later', () => {
    const emails = {} as EmailQueueRepository;
    const config = { WELCOME_MAIL_DELAY_MINUTES: 0 };
    const added = new PasskeyAddedMailConsumer(emails, config);
    const deleted = new PasskeyDeletedMailConsumer(emails, config);
    expect([added.durableName, added.subjects, added.staleAfterMs]).toEqual(['notifications__passkey-added-mail', ['identity.passkey.added.v1'], 24 * 60 * 60 * 1000]);
    expect([deleted.durableName, deleted.subjects, deleted.staleAfterMs]).toEqual(['notifications__passkey-deleted-mail', ['identity.passkey.deleted.v1'], 24 * 60 * 60 * 1000]);
  });

  it('sends a login code at once', async () => {
    expect(await enqueuedFor(LoginCodeMailConsumer, 'identity.login-code.requested.v1', { userId: USER, code: '123456' })).toEqual([
      [{ kind: 'login-code', data: { userId: USER, code: '123456' } }, 'event-1', { delayMs: 0 }],
    ]);
  });
});
