import { DEFAULT_PUSH_SERVICE_HOSTS, isAllowedPushEndpoint, parsePushServiceHosts } from './push-endpoints';

describe('push endpoints (S12)', () => {
  const production = parsePushServiceHosts(DEFAULT_PUSH_SERVICE_HOSTS.join(','));

  it('accepts the browsers push services over https', () => {
    expect(isAllowedPushEndpoint('https://fcm.googleapis.com/fcm/send/abc:def', production)).toBe(true);
    expect(isAllowedPushEndpoint('https://updates.push.services.mozilla.com/wpush/v2/gAAAA', production)).toBe(true);
    expect(isAllowedPushEndpoint('https://wns2-par02p.notify.windows.com/w/?token=x', production)).toBe(true);
    expect(isAllowedPushEndpoint('https://web.push.apple.com/QGx', production)).toBe(true);
  });

  it('refuses internal addresses, other hosts, look-alikes, other ports, http and credentials', () => {
    for (const endpoint of [
      'https://127.0.0.1/push',
      'https://[::1]/push',
      'https://localhost/push',
      'https://169.254.169.254/latest/meta-data',
      'https://example.com/push',
      'https://fcm.googleapis.com.evil.example/push',
      'https://evilfcm.googleapis.com/push',
      'https://notify.windows.com/push',
      'https://fcm.googleapis.com:8443/push',
      'http://fcm.googleapis.com/push',
      'https://user:pw@fcm.googleapis.com/push',
      'not a url',
    ]) {
      expect({ endpoint, allowed: isAllowedPushEndpoint(endpoint, production) }).toEqual({ endpoint, allowed: false });
    }
  });

  it('lets tests name a local push service with its port, and marks it internal', () => {
    const [local] = parsePushServiceHosts('localhost:8443');
    expect(local).toMatchObject({ host: 'localhost', port: 8443, internal: true });
    expect(isAllowedPushEndpoint('https://localhost:8443/push/1', [local])).toBe(true);
    expect(isAllowedPushEndpoint('https://localhost/push/1', [local])).toBe(false);
    expect(parsePushServiceHosts('127.0.0.1')[0].internal).toBe(true);
    expect(parsePushServiceHosts('fcm.googleapis.com')[0].internal).toBe(false);
    expect(() => parsePushServiceHosts('https://fcm.googleapis.com')).toThrow(/host\[:port\]/);
  });
});
