import { UnrecoverableError } from 'bullmq';
import { emailJobOf, recipientOf } from './email-jobs';

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
});
