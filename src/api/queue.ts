/**
 * A FIFO concurrency limiter: callers may fire any number of requests at once; at most `size` run
 * together, the others wait their turn in order.
 */
export class ConcurrencyQueue {
  private running = 0;
  private readonly waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  private peak = 0;

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`parallelism must be a positive integer, got ${size}`);
  }

  /** Resolves with a release function once a slot is free. */
  acquire(): Promise<() => void> {
    if (this.running < this.size) return Promise.resolve(this.take());
    return new Promise<() => void>((resolve, reject) => {
      this.waiters.push({ resolve: () => resolve(this.take()), reject });
    });
  }

  /** Rejects every caller still waiting for a slot (used on abort); running work is untouched. */
  rejectWaiting(reason: () => unknown): void {
    for (const w of this.waiters.splice(0)) w.reject(reason());
  }

  get active(): number {
    return this.running;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** Highest number of slots ever held at once. */
  get peakActive(): number {
    return this.peak;
  }

  private take(): () => void {
    this.running++;
    this.peak = Math.max(this.peak, this.running);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      const next = this.waiters.shift();
      if (next) next.resolve();
    };
  }
}
