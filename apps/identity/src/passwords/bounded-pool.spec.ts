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
    expect(pool.stats).toEqual({ running: 2, queued: 1 });
    gates[0].resolve();
    await runs[0];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    gates[1].resolve();
    gates[2].resolve();
    await Promise.all(runs);
    expect(pool.stats).toEqual({ running: 0, queued: 0 });
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
});
