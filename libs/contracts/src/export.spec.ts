import { shortenPushEndpoint } from './export';

describe('a push endpoint in an export', () => {
  it('keeps the push service’s origin and the last 8 characters, never the whole capability URL', () => {
    expect(shortenPushEndpoint('https://fcm.googleapis.com/fcm/send/dQw4w9WgXcQ:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx')).toBe('https://fcm.googleapis.com/…UH-1RYqx');
  });

  it('keeps only the last 8 characters of something that is not a URL', () => {
    expect(shortenPushEndpoint('not a url at all')).toBe('/…l at all');
  });
});
