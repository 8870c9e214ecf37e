/**
 * topologicalOrder keeps every node's dependents in one flat array: the order (Kahn's algorithm,
 * FIFO seeded in insertion order) must be exactly the one an array of dependents per node gives,
 * with parents, repeated and missing dependencies, self-references and cycles.
 */
import { describe, expect, it } from 'vitest';
import { topologicalOrder, type OrderInput } from '../../src/graph/order.js';

/** The order as it was computed with an array of dependents per node. */
function referenceOrder(list: OrderInput[]): string[] {
  const index = new Map(list.map((n, i) => [n.address, i]));
  const indegree = list.map(() => 0);
  const dependents: number[][] = list.map(() => []);
  list.forEach((n, i) => {
    for (const dep of n.parent ? [n.parent, ...n.dependsOn] : [...n.dependsOn]) {
      const j = index.get(dep);
      if (j === undefined || j === i) continue;
      indegree[i]!++;
      dependents[j]!.push(i);
    }
  });
  const queue: number[] = [];
  list.forEach((_, i) => indegree[i] === 0 && queue.push(i));
  const order: string[] = [];
  for (let head = 0; head < queue.length; head++) {
    const i = queue[head]!;
    order.push(list[i]!.address);
    for (const d of dependents[i]!) if (--indegree[d]! === 0) queue.push(d);
  }
  return order;
}

describe('topologicalOrder', () => {
  it('gives the order of an array of dependents per node on generated graphs', () => {
    let seed = 5;
    const rand = (n: number) => (((seed = (Math.imul(seed, 1103515245) + 12345) | 0) >>> 8) % n);
    let cycles = 0;
    for (let g = 0; g < 400; g++) {
      const size = 1 + rand(40);
      const name = (i: number) => `n${i}`;
      const list: OrderInput[] = Array.from({ length: size }, (_, i) => {
        // Mostly edges to earlier nodes (acyclic), sometimes later ones, unknown ones, itself, twice.
        const pick = () => (rand(8) === 0 ? (rand(2) ? 'outside' : name(rand(size))) : name(rand(i + 1)));
        const node: OrderInput = { address: name(i), dependsOn: Array.from({ length: rand(4) }, pick) };
        if (rand(2)) node.parent = pick();
        return node;
      });
      const shuffled = list.slice().sort(() => rand(3) - 1);
      const r = topologicalOrder(shuffled);
      expect(r.order).toEqual(referenceOrder(shuffled));
      if (r.cycle) {
        cycles++;
        expect(r.order.length).toBeLessThan(size);
      } else expect(r.order.length).toBe(size);
    }
    // Both outcomes were exercised.
    expect(cycles).toBeGreaterThan(20);
    expect(cycles).toBeLessThan(380);
  });
});
