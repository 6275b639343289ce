import { ConfigError } from '@homing/platform';
import { DEFAULT_PUSH_SERVICE_HOSTS } from '../channels/push/push-endpoints';
import { bullmqPrefixOf, loadNotificationsConfig, publicUrlOf } from './notifications.config';

// A VAPID pair's shape (65-byte public key, 32-byte private key, base64url): required in every environment.
const vapid = { VAPID_PUBLIC_KEY: Buffer.alloc(65, 4).toString('base64url'), VAPID_PRIVATE_KEY: Buffer.alloc(32, 1).toString('base64url') };

describe('notifications configuration', () => {
  it('defaults to MailDev, the development public URL, the homing BullMQ prefix and the browsers push services', () => {
    const config = loadNotificationsConfig(vapid);
    expect(config.PUSH_SERVICE_HOSTS.map((host) => host.pattern)).toEqual(DEFAULT_PUSH_SERVICE_HOSTS);
    expect(config.SMTP_URL).toBe('smtp://127.0.0.1:1025');
    expect(config.MAIL_FROM).toBe('Homing <no-reply@homing.localhost>');
    expect(publicUrlOf(config)).toBe('http://localhost:8080');
    expect(bullmqPrefixOf(config)).toBe('homing');
  });

  it('delays the owner’s e-mail 10 minutes by default, takes decimals, and refuses what is not a number of minutes', () => {
    expect(loadNotificationsConfig(vapid).OWNER_EMAIL_DELAY_MINUTES).toBe(10);
    expect(loadNotificationsConfig(vapid).WELCOME_MAIL_DELAY_MINUTES).toBe(5);
    expect(loadNotificationsConfig({ ...vapid, WELCOME_MAIL_DELAY_MINUTES: '0' }).WELCOME_MAIL_DELAY_MINUTES).toBe(0);
    expect(() => loadNotificationsConfig({ ...vapid, WELCOME_MAIL_DELAY_MINUTES: 'later' })).toThrow(ConfigError);
    expect(loadNotificationsConfig({ ...vapid, OWNER_EMAIL_DELAY_MINUTES: '0.05' }).OWNER_EMAIL_DELAY_MINUTES).toBe(0.05);
    expect(() => loadNotificationsConfig({ ...vapid, OWNER_EMAIL_DELAY_MINUTES: 'soon' })).toThrow(ConfigError);
    expect(() => loadNotificationsConfig({ ...vapid, OWNER_EMAIL_DELAY_MINUTES: '-1' })).toThrow(ConfigError);
  });

  it('holds a job’s lock 15 s by default, and refuses a lock too short to renew or not a whole number', () => {
    expect(loadNotificationsConfig(vapid).JOB_LOCK_SECONDS).toBe(15);
    expect(loadNotificationsConfig({ ...vapid, JOB_LOCK_SECONDS: '5' }).JOB_LOCK_SECONDS).toBe(5);
    for (const seconds of ['1', '2.5', 'soon', '301']) expect(() => loadNotificationsConfig({ ...vapid, JOB_LOCK_SECONDS: seconds })).toThrow(/JOB_LOCK_SECONDS/);
  });

  it('holds a run’s claim on a delivery 90 s by default, and refuses one shorter than a run or not a whole number', () => {
    expect(loadNotificationsConfig(vapid).DELIVERY_CLAIM_SECONDS).toBe(90);
    expect(loadNotificationsConfig({ ...vapid, DELIVERY_CLAIM_SECONDS: '10' }).DELIVERY_CLAIM_SECONDS).toBe(10);
    for (const seconds of ['4', '7.5', 'long', '601']) expect(() => loadNotificationsConfig({ ...vapid, DELIVERY_CLAIM_SECONDS: seconds })).toThrow(/DELIVERY_CLAIM_SECONDS/);
  });

  it('gives each NATS namespace its own BullMQ prefix unless one is set', () => {
    expect(bullmqPrefixOf(loadNotificationsConfig({ ...vapid, NATS_NAMESPACE: 't1_ab12cd' }))).toBe('homing_t1_ab12cd');
    expect(bullmqPrefixOf(loadNotificationsConfig({ ...vapid, NATS_NAMESPACE: 't1_ab12cd', BULLMQ_PREFIX: 'staging' }))).toBe('staging');
    expect(publicUrlOf(loadNotificationsConfig({ ...vapid, PUBLIC_URL: 'https://homing.example/' }))).toBe('https://homing.example');
  });

  it('refuses a From header over two lines, a prefix with a colon and a non-SMTP URL, all at once', () => {
    const load = () => loadNotificationsConfig({ ...vapid, MAIL_FROM: 'Homing <a@b.c>\r\nBcc: x@y.z', BULLMQ_PREFIX: 'a:b', SMTP_URL: 'http://mail' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/MAIL_FROM[\s\S]*SMTP_URL|SMTP_URL[\s\S]*MAIL_FROM/);
    expect(load).toThrow(/BULLMQ_PREFIX/);
  });

  it('requires VAPID keys of the right size and a mailto: subject', () => {
    const load = () => loadNotificationsConfig({ VAPID_PUBLIC_KEY: 'short', VAPID_SUBJECT: 'https://homing.example' });
    expect(load).toThrow(/VAPID_PUBLIC_KEY[\s\S]*VAPID_PRIVATE_KEY[\s\S]*VAPID_SUBJECT/);
  });

  it('lets tests and development add a local push service, and refuses IP addresses and localhost in production (S12)', () => {
    expect(loadNotificationsConfig({ ...vapid, NODE_ENV: 'test', PUSH_SERVICE_HOSTS: 'localhost:8443' }).PUSH_SERVICE_HOSTS).toMatchObject([{ host: 'localhost', port: 8443 }]);
    for (const hosts of ['127.0.0.1', 'fcm.googleapis.com,localhost:8443', '[::1]', '10.0.0.5:443']) {
      expect(() => loadNotificationsConfig({ ...vapid, NODE_ENV: 'production', PUSH_SERVICE_HOSTS: hosts })).toThrow(/PUSH_SERVICE_HOSTS: no IP addresses or localhost/);
    }
    expect(() => loadNotificationsConfig({ ...vapid, PUSH_SERVICE_HOSTS: 'https://fcm.googleapis.com/' })).toThrow(/PUSH_SERVICE_HOSTS/);
  });
});
