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
