import type IORedis from 'ioredis';
import { expectEventually, isolatedRedis, type IsolatedRedis } from '@homing/testing';
import { StreamLeases } from '../src/conversations/stream-leases';

describe('StreamLeases (real Redis)', () => {
  let isolated: IsolatedRedis;
  let redis: IORedis;
  let namespace: string;

  beforeAll(() => {
    isolated = isolatedRedis();
    ({ redis, namespace } = isolated);
  });

  afterAll(() => isolated.close());

  it('grants up to the cap per address, refuses the next with a wait, and keeps counting other addresses apart', async () => {
    const leases = new StreamLeases(redis, { perAddress: 20, renewEveryMs: 15_000, namespace });
    const answers = await Promise.all(Array.from({ length: 20 }, () => leases.acquire('10.0.0.1')));
    expect(answers.every((answer) => answer.granted)).toBe(true);

    const refused = await leases.acquire('10.0.0.1');
    expect(refused).toEqual({ granted: false, retryAfterMs: expect.any(Number) });
    expect(refused.granted === false && refused.retryAfterMs).toBeGreaterThanOrEqual(1000);
    expect((await leases.acquire('10.0.0.2')).granted).toBe(true);
    expect(leases.size).toBe(21);
  });

  it('counts the streams of every replica together, and a released place is free again', async () => {
    const replicaA = new StreamLeases(redis, { perAddress: 2, renewEveryMs: 15_000, namespace });
    const replicaB = new StreamLeases(redis, { perAddress: 2, renewEveryMs: 15_000, namespace });
    const first = await replicaA.acquire('10.0.1.1');
    expect((await replicaB.acquire('10.0.1.1')).granted).toBe(true);
    expect((await replicaB.acquire('10.0.1.1')).granted).toBe(false);

    if (!first.granted) throw new Error('first lease refused');
    first.release();
    await expectEventually(async () => expect((await replicaB.acquire('10.0.1.1')).granted).toBe(true));
  });

  it('lets the places of a replica that stopped renewing expire, and keeps those that are renewed', async () => {
    const stopped = new StreamLeases(redis, { perAddress: 1, renewEveryMs: 100, namespace });
    const alive = new StreamLeases(redis, { perAddress: 1, renewEveryMs: 100, namespace });
    expect((await stopped.acquire('10.0.2.1')).granted).toBe(true);
    expect((await alive.acquire('10.0.2.2')).granted).toBe(true);

    const renewing = setInterval(() => void alive.renew(), 100);
    try {
      // The stopped replica never renews: its lease runs out after three missed renewals (300 ms).
      await expectEventually(async () => expect((await new StreamLeases(redis, { perAddress: 1, renewEveryMs: 100, namespace }).acquire('10.0.2.1')).granted).toBe(true), {
        timeoutMs: 3000,
      });
      await new Promise((resolveWait) => setTimeout(resolveWait, 600));
      expect((await new StreamLeases(redis, { perAddress: 1, renewEveryMs: 100, namespace }).acquire('10.0.2.2')).granted).toBe(false);
    } finally {
      clearInterval(renewing);
    }
  });
});
