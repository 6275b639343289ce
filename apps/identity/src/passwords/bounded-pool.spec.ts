import { BoundedPool, PoolFullError } from './bounded-pool';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('BoundedPool', () => {
  it('runs at most `concurrency` tasks at once and queues the next ones', async () => {
    const pool = new BoundedPool(2, 2);
    const gates = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, index) => pool.run(async () => (started.push(index), gate.promise)));
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(pool.stats).toMatchObject({ running: 2, queued: 1 });
    gates[0].resolve();
    await runs[0];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    gates[1].resolve();
    gates[2].resolve();
    await Promise.all(runs);
    expect(pool.stats).toMatchObject({ running: 0, queued: 0 });
  });

  it('refuses a task at once when every slot and the queue are taken', async () => {
    const pool = new BoundedPool(1, 1);
    const gate = deferred();
    const first = pool.run(() => gate.promise);
    const second = pool.run(() => Promise.resolve('queued'));
    await expect(pool.run(() => Promise.resolve('refused'))).rejects.toBeInstanceOf(PoolFullError);
    gate.resolve();
    await first;
    await expect(second).resolves.toBe('queued');
  });

  it('frees the slot of a task that failed', async () => {
    const pool = new BoundedPool(1, 0);
    await expect(pool.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(pool.run(() => Promise.resolve(1))).resolves.toBe(1);
  });

  it('refuses at once a task whose deadline the queue ahead of it would outlast, at the pool’s recent pace', async () => {
    let now = 0;
    const pool = new BoundedPool(1, 10, () => now);
    // One task of 100 ms sets the pace.
    await pool.run(async () => void (now += 100));
    const gate = deferred();
    const running = pool.run(() => gate.promise);
    // Queued now: waits ~100 ms for the slot, then runs ~100 ms. A deadline 150 ms away cannot be met.
    await expect(pool.run(() => Promise.resolve('late'), now + 150)).rejects.toBeInstanceOf(PoolFullError);
    const inTime = pool.run(() => Promise.resolve('in time'), now + 500);
    gate.resolve();
    await running;
    await expect(inTime).resolves.toBe('in time');
  });

  it('drops a queued task whose turn comes after its deadline, and hands the slot on', async () => {
    let now = 0;
    const pool = new BoundedPool(1, 10, () => now);
    const gate = deferred();
    const running = pool.run(() => gate.promise);
    const expired = pool.run(() => Promise.resolve('too late'), 50);
    const next = pool.run(() => Promise.resolve('next'));
    now = 60;
    gate.resolve();
    await running;
    await expect(expired).rejects.toBeInstanceOf(PoolFullError);
    await expect(next).resolves.toBe('next');
    expect(pool.stats).toMatchObject({ running: 0, queued: 0 });
  });
});
