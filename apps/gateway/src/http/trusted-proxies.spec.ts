import proxyAddr from '@fastify/proxy-addr';
import { rememberingTrust } from './trusted-proxies';

describe('rememberingTrust', () => {
  afterEach(() => {
    jest.restoreAllMocks();
    jest.useRealTimers();
  });

  it('answers as @fastify/proxy-addr does for addresses, CIDR blocks and whatever a header may hold', () => {
    const trusted = ['10.0.0.0/8', '127.0.0.1', 'fd00::/8'];
    const trust = rememberingTrust(trusted);
    const reference = proxyAddr.compile(trusted);
    const addresses = ['10.1.2.3', '11.0.0.1', '127.0.0.1', '127.0.0.2', '::ffff:127.0.0.1', '::ffff:10.9.9.9', 'fd12::1', 'fe80::1', '::1', 'not an address', '', '10.1.2.3 '];
    for (const round of [1, 2]) {
      expect(addresses.map((address) => [address, trust(address, round)])).toEqual(addresses.map((address) => [address, reference(address, round)]));
    }
    expect(trust('10.1.2.3', 0)).toBe(true);
    expect(trust('11.0.0.1', 0)).toBe(false);
  });

  it('asks about an address once, and starts over past the addresses it may remember', () => {
    const asked: string[] = [];
    jest.spyOn(proxyAddr, 'compile').mockImplementation(() => (address: string) => (asked.push(address), address === '127.0.0.1'));
    const trust = rememberingTrust(['127.0.0.1'], 3);
    for (let read = 0; read < 5; read += 1) {
      expect(trust('127.0.0.1', 0)).toBe(true);
      expect(trust('203.0.113.7', 1)).toBe(false);
    }
    expect(asked).toEqual(['127.0.0.1', '203.0.113.7']);
    trust('203.0.113.8', 1);
    // The fourth address finds the memory full: it starts over, so the first is asked about again.
    trust('203.0.113.9', 1);
    trust('127.0.0.1', 0);
    expect(asked).toEqual(['127.0.0.1', '203.0.113.7', '203.0.113.8', '203.0.113.9', '127.0.0.1']);
  });

  it('forgets every address after ten minutes, however few it has seen (client addresses are personal data)', () => {
    jest.useFakeTimers();
    const asked: string[] = [];
    jest.spyOn(proxyAddr, 'compile').mockImplementation(() => (address: string) => (asked.push(address), false));
    const trust = rememberingTrust(['127.0.0.1']);
    trust('203.0.113.7', 0);
    jest.advanceTimersByTime(9 * 60 * 1000);
    trust('203.0.113.7', 0);
    expect(asked).toEqual(['203.0.113.7']);
    jest.advanceTimersByTime(60 * 1000);
    trust('203.0.113.7', 0);
    expect(asked).toEqual(['203.0.113.7', '203.0.113.7']);
  });
});
