import { loadMailRelayConfig } from './mail-relay.config';

describe('loadMailRelayConfig', () => {
  it('limits each client and connection by default', () => {
    expect(loadMailRelayConfig({})).toMatchObject({
      RELAY_SMTP_MAX_CLIENTS: 200,
      RELAY_SMTP_MAX_CONNECTIONS_PER_CLIENT: 10,
      RELAY_SMTP_MAX_MAILS_PER_CONNECTION: 100,
      RELAY_SMTP_IDLE_TIMEOUT_SECONDS: 60,
      RELAY_SMTP_MAX_CONNECTION_SECONDS: 600,
    });
  });

  it('takes other limits from the environment', () => {
    expect(loadMailRelayConfig({ RELAY_SMTP_MAX_CONNECTIONS_PER_CLIENT: '3', RELAY_SMTP_MAX_MAILS_PER_CONNECTION: '20', RELAY_SMTP_IDLE_TIMEOUT_SECONDS: '300' })).toMatchObject({
      RELAY_SMTP_MAX_CONNECTIONS_PER_CLIENT: 3,
      RELAY_SMTP_MAX_MAILS_PER_CONNECTION: 20,
      RELAY_SMTP_IDLE_TIMEOUT_SECONDS: 300,
    });
  });

  it.each([
    ['RELAY_SMTP_MAX_CONNECTIONS_PER_CLIENT', '0'],
    ['RELAY_SMTP_MAX_CONNECTIONS_PER_CLIENT', 'ten'],
    ['RELAY_SMTP_MAX_MAILS_PER_CONNECTION', '0'],
    ['RELAY_SMTP_MAX_MAILS_PER_CONNECTION', '2.5'],
    ['RELAY_SMTP_IDLE_TIMEOUT_SECONDS', '0'],
    ['RELAY_SMTP_IDLE_TIMEOUT_SECONDS', '3600'],
    ['RELAY_SMTP_MAX_CONNECTION_SECONDS', '-1'],
    ['RELAY_SMTP_MAX_CLIENTS', '0'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadMailRelayConfig({ [name]: value })).toThrow(name);
  });

  it('refuses more connections per client than in all', () => {
    expect(() => loadMailRelayConfig({ RELAY_SMTP_MAX_CLIENTS: '5', RELAY_SMTP_MAX_CONNECTIONS_PER_CLIENT: '10' })).toThrow('RELAY_SMTP_MAX_CONNECTIONS_PER_CLIENT cannot be over RELAY_SMTP_MAX_CLIENTS');
  });
});
