import { notificationJobId } from './job-ids';

describe('notification job ids', () => {
  it('are <channel>_<eventId>_<recipient>, the same for the same event and recipient', () => {
    const eventId = '019ab1c2-3d4e-7f00-8a9b-0c1d2e3f4a5b';
    const userId = '019ab1c2-0000-7000-8000-000000000001';
    expect(notificationJobId('email', eventId, userId)).toBe(`email_${eventId}_${userId}`);
    expect(notificationJobId('email', eventId, userId)).toBe(notificationJobId('email', eventId, userId));
    expect(notificationJobId('email', eventId, userId)).not.toContain(':');
  });

  it('refuses ids BullMQ would misread (a colon) or anything but letters, digits, _ and -', () => {
    expect(() => notificationJobId('email', 'a:b', 'user')).toThrow(/letters, digits/);
    expect(() => notificationJobId('email', 'event', 'us er')).toThrow(/letters, digits/);
  });
});
