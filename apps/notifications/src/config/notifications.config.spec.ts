import { ConfigError } from '@homing/platform';
import { bullmqPrefixOf, loadNotificationsConfig, publicUrlOf } from './notifications.config';

describe('notifications configuration', () => {
  it('defaults to MailDev, the development public URL and the homing BullMQ prefix', () => {
    const config = loadNotificationsConfig({});
    expect(config.SMTP_URL).toBe('smtp://127.0.0.1:1025');
    expect(config.MAIL_FROM).toBe('Homing <no-reply@homing.localhost>');
    expect(publicUrlOf(config)).toBe('http://localhost:8080');
    expect(bullmqPrefixOf(config)).toBe('homing');
  });

  it('gives each NATS namespace its own BullMQ prefix unless one is set', () => {
    expect(bullmqPrefixOf(loadNotificationsConfig({ NATS_NAMESPACE: 't1_ab12cd' }))).toBe('homing_t1_ab12cd');
    expect(bullmqPrefixOf(loadNotificationsConfig({ NATS_NAMESPACE: 't1_ab12cd', BULLMQ_PREFIX: 'staging' }))).toBe('staging');
    expect(publicUrlOf(loadNotificationsConfig({ PUBLIC_URL: 'https://homing.example/' }))).toBe('https://homing.example');
  });

  it('refuses a From header over two lines, a prefix with a colon and a non-SMTP URL, all at once', () => {
    const load = () => loadNotificationsConfig({ MAIL_FROM: 'Homing <a@b.c>\r\nBcc: x@y.z', BULLMQ_PREFIX: 'a:b', SMTP_URL: 'http://mail' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/MAIL_FROM[\s\S]*SMTP_URL|SMTP_URL[\s\S]*MAIL_FROM/);
    expect(load).toThrow(/BULLMQ_PREFIX/);
  });
});
