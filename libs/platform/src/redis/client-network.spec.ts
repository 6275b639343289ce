import { clientNetworkOf } from './client-network';
import { unknownCodeMissesKey } from './shared-limits';

describe('clientNetworkOf', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::FFFF:192.0.2.1', '192.0.2.1'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:DB8:0:0:1::', '2001:db8:0:0::/64'],
    ['2001:db8:0:0:ffff:ffff:ffff:ffff', '2001:db8:0:0::/64'],
    ['2001:0db8:00aa:0001:1:2:3:4', '2001:db8:aa:1::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::ffff:c000:201', '0:0:0:0::/64'],
  ])('%s is client %s', (address, client) => {
    expect(clientNetworkOf(address)).toBe(client);
  });

  it('gives every address of one /64 the same client, and a neighbouring /64 another', () => {
    const inBlock = ['2001:db8:1:2::1', '2001:db8:1:2:abcd:ef01:2345:6789', '2001:db8:1:2:ffff::'].map(clientNetworkOf);
    expect(new Set(inBlock).size).toBe(1);
    expect(clientNetworkOf('2001:db8:1:3::1')).not.toBe(inBlock[0]);
  });

  it('leaves what is no address as it is, and its own answers as they are', () => {
    expect(clientNetworkOf('unknown')).toBe('unknown');
    expect(clientNetworkOf('2001:db8:0:0::/64')).toBe('2001:db8:0:0::/64');
  });
});

describe('unknownCodeMissesKey', () => {
  it('is one key for every address of an IPv6 /64 and for an IPv4 address however the listener wrote it, at both edges', () => {
    expect(unknownCodeMissesKey('ns', '2001:db8:1:2::1')).toBe(unknownCodeMissesKey('ns', '2001:db8:1:2:dead:beef::7'));
    expect(unknownCodeMissesKey('ns', '::ffff:192.0.2.1')).toBe(unknownCodeMissesKey('ns', '192.0.2.1'));
    expect(unknownCodeMissesKey('ns', '2001:db8:1:2::1')).not.toBe(unknownCodeMissesKey('ns', '2001:db8:1:3::1'));
  });
});
