/**
 * Topological order and cycle detection over resources keyed by address.
 * Kahn's algorithm with a FIFO seeded in insertion order: deterministic and O(nodes + edges).
 */
import type { Address } from '../model/resource.js';

export interface OrderInput {
  address: Address;
  parent?: Address;
  dependsOn: readonly Address[];
}

export interface OrderResult {
  order: Address[];
  /** One cycle, as a closed path (first address repeated at the end), when there is one. */
  cycle?: Address[];
}

/** Edges: parent and dependsOn entries that are themselves nodes (external references are ignored). */
export function topologicalOrder(nodes: Iterable<OrderInput>): OrderResult {
  const list = [...nodes];
  const index = new Map<Address, number>();
  list.forEach((n, i) => index.set(n.address, i));
  const indegree = new Int32Array(list.length);
  const dependents: number[][] = list.map(() => []);
  list.forEach((n, i) => {
    for (const dep of depsOf(n)) {
      const j = index.get(dep);
      if (j === undefined || j === i) continue;
      indegree[i]!++;
      dependents[j]!.push(i);
    }
  });
  const queue: number[] = [];
  for (let i = 0; i < list.length; i++) if (indegree[i] === 0) queue.push(i);
  const order: Address[] = [];
  for (let head = 0; head < queue.length; head++) {
    const i = queue[head]!;
    order.push(list[i]!.address);
    for (const d of dependents[i]!) if (--indegree[d]! === 0) queue.push(d);
  }
  if (order.length === list.length) return { order };
  return { order, cycle: findCycle(list, index, indegree) };
}

function depsOf(n: OrderInput): Address[] {
  return n.parent ? [n.parent, ...n.dependsOn] : [...n.dependsOn];
}

/** Walks dependencies among the nodes left with indegree > 0 until one repeats. */
function findCycle(list: OrderInput[], index: Map<Address, number>, indegree: Int32Array): Address[] {
  const start = indegree.findIndex((d) => d > 0);
  const seenAt = new Map<number, number>();
  const path: number[] = [];
  let cur = start;
  while (!seenAt.has(cur)) {
    seenAt.set(cur, path.length);
    path.push(cur);
    const next = depsOf(list[cur]!)
      .map((a) => index.get(a))
      .find((j): j is number => j !== undefined && j !== cur && indegree[j]! > 0);
    if (next === undefined) break;
    cur = next;
  }
  const from = seenAt.get(cur) ?? 0;
  // The path follows "depends on" edges; print it in dependency order: a -> b means a needs b.
  const cycle = path.slice(from).map((i) => list[i]!.address);
  cycle.push(cycle[0]!);
  return cycle;
}
