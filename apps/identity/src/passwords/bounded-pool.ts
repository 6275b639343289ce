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
 *
 * A task with a deadline (the request's, epoch ms) is also refused at once when the queue ahead of it would not
 * let it finish in time at the pool's recent pace, and dropped if its turn comes after the deadline: on a slow
 * or busy machine a full queue would otherwise outlast the caller, who then sees a timeout instead of 429.
 */
export class BoundedPool {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  /** Moving average of a task's duration in ms (0 until one has run). */
  private averageMs = 0;

  constructor(
    private readonly concurrency: number,
    private readonly maxQueued: number,
    private readonly now: () => number = Date.now,
  ) {}

  get stats(): { running: number; queued: number; averageMs: number } {
    return { running: this.running, queued: this.waiting.length, averageMs: this.averageMs };
  }

  async run<T>(task: () => Promise<T>, deadline?: number): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxQueued) throw new PoolFullError();
      if (deadline !== undefined && this.now() + this.expectedWaitMs() + this.averageMs > deadline) throw new PoolFullError();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      if (deadline !== undefined && this.now() >= deadline) {
        this.release();
        throw new PoolFullError();
      }
    } else {
      this.running += 1;
    }
    const started = this.now();
    try {
      return await task();
    } finally {
      const took = this.now() - started;
      this.averageMs = this.averageMs === 0 ? took : this.averageMs * 0.8 + took * 0.2;
      this.release();
    }
  }

  /** How long a task queued now would wait for a slot, at the recent pace. */
  private expectedWaitMs(): number {
    return Math.ceil((this.waiting.length + 1) / this.concurrency) * this.averageMs;
  }

  private release(): void {
    // Hand the slot straight to the next waiter, so `running` never dips and lets a newcomer overtake.
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
  }
}
