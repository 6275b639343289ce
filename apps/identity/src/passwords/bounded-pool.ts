/** Thrown at once when every slot is busy and the queue is full: the caller answers 429 rather than wait. */
export class PoolFullError extends Error {
  constructor() {
    super('password hashing is at capacity');
    this.name = 'PoolFullError';
  }
}

/**
 * At most `concurrency` tasks run at once and at most `maxQueued` wait; a task beyond that is refused at once
 * (PoolFullError). Bounds both the CPU spent on hashing and the latency of the requests waiting for it.
 */
export class BoundedPool {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxQueued: number,
  ) {}

  get stats(): { running: number; queued: number } {
    return { running: this.running, queued: this.waiting.length };
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxQueued) throw new PoolFullError();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter, so `running` never dips and lets a newcomer overtake.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
