import { Logger } from '@nestjs/common';
import { MESSAGE_LIMITS, type RedisClient } from '@homing/platform';
import type { MailRelayConfig } from '../config/mail-relay.config';
import { RelayLimits, relayMessageWait } from './relay-limits';

const HOUR = MESSAGE_LIMITS.windowMs;
const at = (count: number, remainingMs = HOUR) => ({ count, remainingMs });

describe('relayMessageWait', () => {
  it('lets a mail through up to each writer’s limit and the tag’s', () => {
    expect(relayMessageWait({ sender: at(MESSAGE_LIMITS.perAddressPerTag), host: at(MESSAGE_LIMITS.perAddressPerTag), tag: at(MESSAGE_LIMITS.perTag) })).toBe(0);
  });

  it('refuses the sender’s message past 20 for the tag, for what is left of the sender’s window', () => {
    expect(relayMessageWait({ sender: at(MESSAGE_LIMITS.perAddressPerTag + 1, 120_000), host: at(1), tag: at(1) })).toBe(120_000);
  });

  it('refuses the host’s message past 20 for the tag whatever its From, for what is left of the host’s window', () => {
    expect(relayMessageWait({ sender: at(1), host: at(MESSAGE_LIMITS.perAddressPerTag + 1, 300_000), tag: at(21) })).toBe(300_000);
  });

  it('refuses every message past the tag’s 200, for what is left of the tag’s window', () => {
    expect(relayMessageWait({ sender: at(1), host: at(1), tag: at(MESSAGE_LIMITS.perTag + 1, 600_000) })).toBe(600_000);
  });

  it('answers the longest wait when both writers are past their limits, and a second at least', () => {
    expect(relayMessageWait({ sender: at(21, 60_000), host: at(25, 900_000), tag: at(30) })).toBe(900_000);
    expect(relayMessageWait({ sender: at(21, 0), host: at(1), tag: at(30) })).toBe(1000);
  });
});

/** Redis as countInWindow and refundInWindow use it (the count script; a MULTI of the refund's EVALs), in memory. */
function fakeRedis() {
  const counts = new Map<string, number>();
  // The count script: each key's count, started at 0 with its window, plus one, and the window's time left.
  const countScript = async (_script: string, keyCount: number, ...keysAndWindow: Array<string | number>) =>
    (keysAndWindow.slice(0, keyCount) as string[]).flatMap((key) => [counts.set(key, (counts.get(key) ?? 0) + 1).get(key), HOUR]);
  const multi = () => {
    const queued: Array<() => [null, unknown]> = [];
    const chain = {
      eval(_script: string, _keys: number, key: string) {
        queued.push(() => [null, counts.set(key, Math.max(0, (counts.get(key) ?? 0) - 1)).get(key)]);
        return chain;
      },
      exec: async () => queued.map((reply) => reply()),
    };
    return chain;
  };
  return { counts, client: { redis: { eval: countScript, multi } } as unknown as RedisClient };
}

describe('RelayLimits.admitMessage', () => {
  beforeEach(() => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  const limitsWith = () => {
    const redis = fakeRedis();
    return { ...redis, limits: new RelayLimits(redis.client, { NATS_NAMESPACE: 'test' } as MailRelayConfig) };
  };
  const admitted = async (limits: RelayLimits, times: number, mail: (index: number) => [string, string, string]) => {
    const waits: number[] = [];
    for (let index = 0; index < times; index += 1) waits.push((await limits.admitMessage(...mail(index))).waitMs);
    return waits.filter((waitMs) => waitMs === 0).length;
  };

  it('counts the sender, the host and the tag in one call, keyed by digests: no address in clear', async () => {
    const { limits, counts } = limitsWith();
    await limits.admitMessage('ABCDEFGHJKMNPQRS', 'Sam@Example.test', '192.0.2.7');
    const keys = [...counts.keys()];
    expect(keys).toHaveLength(3);
    expect(keys).toContain('test:messages:ABCDEFGHJKMNPQRS');
    expect(keys.filter((key) => /^test:messages:ABCDEFGHJKMNPQRS:mail:[\w-]{22}$/.test(key))).toHaveLength(1);
    expect(keys.filter((key) => /^test:messages:ABCDEFGHJKMNPQRS:host:[\w-]{22}$/.test(key))).toHaveLength(1);
    expect(keys.join(' ')).not.toMatch(/sam|example|192\.0\.2/i);
  });

  it('stops one host at 20 for a tag whatever From it writes under, and counts another host and another tag apart', async () => {
    const { limits } = limitsWith();
    expect(await admitted(limits, 25, (index) => ['ABCDEFGHJKMNPQRS', `sender-${index}@example.test`, '192.0.2.7'])).toBe(20);
    expect(await admitted(limits, 1, () => ['ABCDEFGHJKMNPQRS', 'new@example.test', '192.0.2.8'])).toBe(1);
    expect(await admitted(limits, 1, () => ['TUVWXYZ234567ABC', 'new@example.test', '192.0.2.7'])).toBe(1);
  });

  it('counts an IPv6 host by its /64', async () => {
    const { limits } = limitsWith();
    expect(await admitted(limits, 21, (index) => ['ABCDEFGHJKMNPQRS', `sender-${index}@example.test`, `2001:db8:1:2::${index.toString(16)}`])).toBe(20);
    expect(await admitted(limits, 1, () => ['ABCDEFGHJKMNPQRS', 'new@example.test', '2001:db8:1:3::1'])).toBe(1);
  });

  it('stops one sender at 20 for a tag from any number of hosts', async () => {
    const { limits } = limitsWith();
    expect(await admitted(limits, 21, (index) => ['ABCDEFGHJKMNPQRS', 'sam@example.test', `192.0.2.${index + 1}`])).toBe(20);
  });

  it('gives the sender’s, the host’s and the tag’s counts back on a refund', async () => {
    const { limits, counts } = limitsWith();
    const { refund } = await limits.admitMessage('ABCDEFGHJKMNPQRS', 'sam@example.test', '192.0.2.7');
    await refund();
    expect([...counts.values()]).toEqual([0, 0, 0]);
  });
});
