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

  it('requires sender authentication by default, with the system’s DNS resolver', () => {
    const config = loadMailRelayConfig({});
    expect(config.RELAY_SENDER_AUTHENTICATION).toBe('required');
    expect(config.RELAY_DNS_SERVERS).toBeUndefined();
  });

  it('turns sender authentication off when told', () => {
    expect(loadMailRelayConfig({ RELAY_SENDER_AUTHENTICATION: 'off' }).RELAY_SENDER_AUTHENTICATION).toBe('off');
  });

  it('refuses a sender authentication other than required or off', () => {
    expect(() => loadMailRelayConfig({ RELAY_SENDER_AUTHENTICATION: 'optional' })).toThrow('RELAY_SENDER_AUTHENTICATION');
  });

  it('takes DNS servers as addresses with or without a port', () => {
    expect(loadMailRelayConfig({ RELAY_DNS_SERVERS: ' 127.0.0.1:5353, 192.0.2.53,[2001:db8::53]:53 , 2001:db8::54' }).RELAY_DNS_SERVERS).toEqual([
      '127.0.0.1:5353',
      '192.0.2.53',
      '[2001:db8::53]:53',
      '2001:db8::54',
    ]);
    expect(loadMailRelayConfig({ RELAY_DNS_SERVERS: '' }).RELAY_DNS_SERVERS).toBeUndefined();
  });

  it.each(['dns.example', '127.0.0.1:0', '127.0.0.1:70000', '127.0.0.1:', '300.1.1.1'])('refuses the DNS server %s', (server) => {
    expect(() => loadMailRelayConfig({ RELAY_DNS_SERVERS: `127.0.0.1,${server}` })).toThrow('RELAY_DNS_SERVERS');
  });
});
