import { UnrecoverableError } from 'bullmq';
import { emailJobOf, isFinishedJobData, recipientIdOf, recipientOf } from './email-jobs';

describe('e-mail jobs as the queue hands them over', () => {
  const userId = '019ab1c2-0000-7000-8000-000000000001';

  it('are read as the kind their name says, with that kind data', () => {
    expect(emailJobOf({ name: 'login-code', data: { userId, code: 'ABCD2345' } })).toEqual({ kind: 'login-code', data: { userId, code: 'ABCD2345' } });
    expect(emailJobOf({ name: 'owner-reply', data: { conversationId: userId, tagCode: 'ABCD1234EFGH5678' } }).kind).toBe('owner-reply');
  });

  it('fail for good when the name is unknown or the data is not that kind', () => {
    expect(() => emailJobOf({ name: 'newsletter', data: { userId } })).toThrow(UnrecoverableError);
    expect(() => emailJobOf({ name: 'login-code', data: { userId, token: 'reset' } })).toThrow(UnrecoverableError);
    // A scrubbed job holds its recipient alone: it can never be sent again.
    expect(() => emailJobOf({ name: 'welcome', data: recipientOf({ userId }) })).toThrow(UnrecoverableError);
  });

  it('tell what a finished run left (the recipient alone) from a job still to send', () => {
    for (const data of [{ userId }, { conversationId: userId }, { invitationId: userId }, { farewell: true }]) expect(isFinishedJobData(recipientOf(data as never))).toBe(true);
    expect(isFinishedJobData({ userId, code: 'ABCD2345' })).toBe(false);
    expect(isFinishedJobData({ email: 'gone@example.test', language: 'es' })).toBe(false);
    for (const data of [null, 'userId', {}, { code: 'ABCD2345' }]) expect(isFinishedJobData(data)).toBe(false);
  });

  it('name a farewell’s recipient neither by its address nor by a user id, and keep no address once scrubbed', () => {
    const farewell = emailJobOf({ name: 'account-deleted', data: { email: 'gone@example.test', language: 'es' } });
    expect(farewell).toEqual({ kind: 'account-deleted', data: { email: 'gone@example.test', language: 'es' } });
    expect(recipientIdOf(farewell.data)).toBe('farewell');
    expect(recipientOf(farewell.data)).toEqual({ farewell: true });
    // What a done farewell keeps cannot be sent again, and scrubbing it twice keeps it as it is.
    expect(() => emailJobOf({ name: 'account-deleted', data: recipientOf(farewell.data) })).toThrow(UnrecoverableError);
    expect(recipientOf(recipientOf(farewell.data))).toEqual({ farewell: true });
    expect(recipientIdOf({ userId })).toBe(userId);
  });

  it('refuse a farewell without an address or in a language the product does not speak', () => {
    expect(() => emailJobOf({ name: 'account-deleted', data: { email: '', language: 'en' } })).toThrow(UnrecoverableError);
    expect(() => emailJobOf({ name: 'account-deleted', data: { email: 'gone@example.test', language: 'fr' } })).toThrow(UnrecoverableError);
  });

  it('name an invitation by its id, never its address, and keep neither address nor token once scrubbed', () => {
    const data = { invitationId: '019ab1c2-0000-7000-8000-0000000000aa', email: 'invitee@example.test', token: 'AAAAAAAAAAAAAAAAAAAAAA', invitationKind: 'transfer', inviterUserId: userId };
    const invitation = emailJobOf({ name: 'invitation', data });
    expect(invitation).toEqual({ kind: 'invitation', data });
    expect(recipientIdOf(invitation.data)).toBe(data.invitationId);
    expect(recipientOf(invitation.data)).toEqual({ invitationId: data.invitationId });
    expect(() => emailJobOf({ name: 'invitation', data: recipientOf(invitation.data) })).toThrow(UnrecoverableError);
    expect(() => emailJobOf({ name: 'invitation', data: { ...data, invitationKind: 'guest' } })).toThrow(UnrecoverableError);
  });

  it('read a passkey mail with its ids, provider (or none) and time, and keep the user’s id alone once scrubbed', () => {
    const data = { userId, passkeyId: '019ab1c2-0000-7000-8000-0000000000bb', provider: null, occurredAt: '2026-11-26T10:06:00.000Z' };
    expect(emailJobOf({ name: 'passkey-deleted', data })).toEqual({ kind: 'passkey-deleted', data });
    expect(emailJobOf({ name: 'passkey-added', data: { ...data, provider: 'iCloud Keychain' } }).kind).toBe('passkey-added');
    expect(recipientIdOf(data)).toBe(userId);
    expect(() => emailJobOf({ name: 'passkey-added', data: recipientOf(data) })).toThrow(UnrecoverableError);
    expect(() => emailJobOf({ name: 'passkey-added', data: { ...data, occurredAt: 'yesterday' } })).toThrow(UnrecoverableError);
  });
});
