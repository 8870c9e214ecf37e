/** Shared test helpers for the API client tests: injected time that never waits for real. */
import type { ApiEvent } from '../../src/api/index.js';

export const BASE = 'http://api.test';
export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** A clock that only moves when the client sleeps; every sleep is recorded. */
export function fakeTime(start = T0) {
  const t = {
    now: start,
    sleeps: [] as number[],
    clock: () => t.now,
    sleep: async (ms: number) => {
      t.sleeps.push(ms);
      t.now += ms;
      // Yield to the event loop as a real sleep would, so that answers in flight can arrive.
      await new Promise((r) => setImmediate(r));
    },
  };
  return t;
}

export function recorder() {
  const events: ApiEvent[] = [];
  return { events, onEvent: (e: ApiEvent) => events.push(e) };
}

/** Deterministic "random" for the jitter. */
export const half = () => 0.5;

/**
 * Virtual time that behaves like real time without waiting: a sleep ends only once everything
 * else has had its turn (pending I/O such as nock replies is delivered first), and then the clock
 * jumps to the earliest sleeper's wake-up time. A sleep cut short by its signal does not move it.
 */
export function virtualTime(start = T0) {
  const timers: Array<{ at: number; wake: () => void }> = [];
  let pumping = false;
  const t = {
    now: start,
    sleeps: [] as number[],
    clock: () => t.now,
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve) => {
        t.sleeps.push(ms);
        const timer = { at: t.now + ms, wake: () => resolve() };
        timers.push(timer);
        signal?.addEventListener(
          'abort',
          () => {
            const i = timers.indexOf(timer);
            if (i >= 0) timers.splice(i, 1);
            resolve();
          },
          { once: true },
        );
        void pump();
      }),
  };
  async function pump(): Promise<void> {
    if (pumping) return;
    pumping = true;
    try {
      while (timers.length) {
        for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
        if (!timers.length) break;
        timers.sort((a, b) => a.at - b.at);
        const next = timers.shift()!;
        t.now = Math.max(t.now, next.at);
        next.wake();
      }
    } finally {
      pumping = false;
    }
  }
  return t;
}

/**
 * A clock whose sleeps stay parked until the test releases them, so that a test can look at what
 * was sent before any waiting request wakes up.
 */
export function parkedTime(start = T0) {
  const parked: Array<{ ms: number; wake: () => void }> = [];
  const t = {
    now: start,
    sleeps: [] as number[],
    clock: () => t.now,
    parked,
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve) => {
        t.sleeps.push(ms);
        const entry = { ms, wake: () => resolve() };
        parked.push(entry);
        signal?.addEventListener('abort', () => {
          const i = parked.indexOf(entry);
          if (i >= 0) parked.splice(i, 1);
          resolve();
        });
      }),
    /** Moves the clock to the end of the longest parked sleep and wakes every sleeper. */
    releaseAll: () => {
      const longest = Math.max(0, ...parked.map((p) => p.ms));
      t.now += longest;
      for (const p of parked.splice(0)) p.wake();
    },
  };
  return t;
}

/** Lets pending I/O callbacks (nock replies) run until `done()` holds; fails if it never does. */
export async function until(done: () => boolean, what = 'condition'): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (done()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`timed out waiting for ${what}`);
}
