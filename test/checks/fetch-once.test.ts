/** The checks' request cache: one load per key, failures remembered, bounded concurrency. */
import { describe, expect, it } from 'vitest';
import { OnceCache } from '../../src/checks/fetch-once.js';

describe('OnceCache', () => {
  it('loads each key once, even when asked concurrently, and remembers a failure', async () => {
    const cache = new OnceCache<string>();
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((r) => setTimeout(r, 5));
      return 'v';
    };
    const got = await Promise.all([cache.get('a', load), cache.get('a', load), cache.get('b', load)]);
    expect(got).toEqual([{ ok: true, value: 'v' }, { ok: true, value: 'v' }, { ok: true, value: 'v' }]);
    expect(loads).toBe(2);

    let failures = 0;
    const failing = async (): Promise<string> => {
      failures++;
      throw Object.assign(new Error('GET /x: bad request'), { status: 400, body: { message: 'unknown region' } });
    };
    expect(await cache.get('bad', failing)).toEqual({ ok: false, message: 'unknown region' });
    expect(await cache.get('bad', failing)).toEqual({ ok: false, message: 'unknown region' });
    expect(failures).toBe(1);
    expect(cache.size).toBe(3);
  });

  it('never has more loads in flight than its limit', async () => {
    const cache = new OnceCache<number>(3);
    let inFlight = 0;
    let most = 0;
    const load = (i: number) => async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 1 + (i % 3)));
      inFlight--;
      return i;
    };
    const first = Array.from({ length: 10 }, (_, i) => cache.get(`k${i}`, load(i)));
    // More keys asked while the first ones run.
    await new Promise((r) => setTimeout(r, 2));
    const later = Array.from({ length: 10 }, (_, i) => cache.get(`j${i}`, load(i)));
    const values = (await Promise.all([...first, ...later])).map((r) => (r.ok ? r.value : -1));
    expect(values).toEqual([...Array.from({ length: 10 }, (_, i) => i), ...Array.from({ length: 10 }, (_, i) => i)]);
    expect(most).toBe(3);
  });
});
