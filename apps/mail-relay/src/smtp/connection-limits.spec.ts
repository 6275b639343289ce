import { ConnectionLimits } from './connection-limits';

const session = (remoteAddress: string) => ({ remoteAddress });

describe('ConnectionLimits', () => {
  const limits = () => new ConnectionLimits('relay.example', { connectionsPerClient: 2, mailsPerConnection: 3 });

  it('takes a client’s connections up to its limit, refuses the next with 421, and takes one again once one closed', () => {
    const connections = limits();
    const [first, second, third] = [session('192.0.2.1'), session('192.0.2.1'), session('192.0.2.1')];
    expect(connections.open(first)).toBeUndefined();
    expect(connections.open(second)).toBeUndefined();
    const refused = connections.open(third);
    expect(refused).toMatchObject({ responseCode: 421, message: '4.7.0 relay.example Too many connections from your address, try again later' });
    // Another client is not counted with the first.
    expect(connections.open(session('192.0.2.2'))).toBeUndefined();

    // The refused connection closes too: it was never counted, so closing it frees nothing.
    connections.close(third);
    expect(connections.open(session('192.0.2.1'))).toBeDefined();
    connections.close(first);
    expect(connections.open(session('192.0.2.1'))).toBeUndefined();
  });

  it('forgets a connection closed twice once', () => {
    const connections = limits();
    const [first, second] = [session('192.0.2.1'), session('192.0.2.1')];
    connections.open(first);
    connections.open(second);
    connections.close(first);
    connections.close(first);
    expect(connections.open(session('192.0.2.1'))).toBeUndefined();
    expect(connections.open(session('192.0.2.1'))).toBeDefined();
  });

  it('counts an IPv6 client by its /64, and an IPv4 client on a dual-stack listener by its IPv4 address', () => {
    const connections = limits();
    expect(connections.open(session('2001:db8:1:2::1'))).toBeUndefined();
    expect(connections.open(session('2001:db8:1:2:ffff:0:0:9'))).toBeUndefined();
    expect(connections.open(session('2001:db8:1:2::abcd'))).toBeDefined();
    expect(connections.open(session('2001:db8:1:3::1'))).toBeUndefined();

    expect(connections.open(session('198.51.100.7'))).toBeUndefined();
    expect(connections.open(session('::ffff:198.51.100.7'))).toBeUndefined();
    expect(connections.open(session('198.51.100.7'))).toBeDefined();
  });

  it('takes a connection’s mails up to its limit, then answers 421 so that the sender reconnects', () => {
    const connections = limits();
    const [one, other] = [session('192.0.2.1'), session('192.0.2.1')];
    connections.open(one);
    connections.open(other);
    expect([connections.startMail(one), connections.startMail(one), connections.startMail(one)]).toEqual([undefined, undefined, undefined]);
    expect(connections.startMail(one)).toMatchObject({ responseCode: 421, message: '4.7.0 relay.example Too many mails on one connection, please reconnect' });
    // Counted per connection, not per client.
    expect(connections.startMail(other)).toBeUndefined();
  });
});
