/**
 * mapWithLimit, the bound on parallel reads (`--parallelism`): never more calls in flight than the
 * limit, every item called once, results in the order of the items whatever order the calls end in.
 */
import { describe, expect, it } from 'vitest';
import { mapWithLimit } from '../../src/live/limit.js';

/** Calls that end in the reverse order of their start, recording how many were in flight at most. */
function tracked() {
  let inFlight = 0;
  let most = 0;
  const started: number[] = [];
  const fn = async (n: number) => {
    started.push(n);
    inFlight++;
    most = Math.max(most, inFlight);
    await new Promise((done) => setTimeout(done, 20 - n));
    inFlight--;
    return n * 10;
  };
  return { fn, started, most: () => most };
}

describe('mapWithLimit', () => {
  it('keeps at most `limit` calls in flight and returns the results in the order of the items', async () => {
    const t = tracked();
    expect(await mapWithLimit([1, 2, 3, 4, 5, 6, 7], 3, t.fn)).toEqual([10, 20, 30, 40, 50, 60, 70]);
    expect(t.most()).toBe(3);
    expect([...t.started].sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('uses the whole limit when there are enough items, and no more workers than items', async () => {
    const t = tracked();
    expect(await mapWithLimit([1, 2], 8, t.fn)).toEqual([10, 20]);
    expect(t.most()).toBe(2);
    expect(t.started).toEqual([1, 2]);
  });

  it('still makes progress with a limit below one, one call at a time', async () => {
    const t = tracked();
    expect(await mapWithLimit([3, 1, 2], 0, t.fn)).toEqual([30, 10, 20]);
    expect(t.most()).toBe(1);
    expect(t.started).toEqual([3, 1, 2]);
  });

  it('calls nothing for no items', async () => {
    const t = tracked();
    expect(await mapWithLimit([], 4, t.fn)).toEqual([]);
    expect(t.started).toEqual([]);
  });
});
