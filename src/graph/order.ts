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
  const n = list.length;
  const index = new Map<Address, number>();
  for (let i = 0; i < n; i++) index.set(list[i]!.address, i);
  // The edges once, as (dependency, dependent) pairs in node order, then the dependents of each
  // node in one flat array (compressed rows): the same lists, in the same order, as an array per
  // node would hold, without tens of thousands of small arrays.
  const from: number[] = [];
  const to: number[] = [];
  const indegree = new Int32Array(n);
  const edge = (i: number, dep: Address): void => {
    const j = index.get(dep);
    if (j === undefined || j === i) return;
    indegree[i]!++;
    from.push(j);
    to.push(i);
  };
  for (let i = 0; i < n; i++) {
    const node = list[i]!;
    if (node.parent) edge(i, node.parent);
    for (const dep of node.dependsOn) edge(i, dep);
  }
  const start = new Int32Array(n + 1);
  for (const j of from) start[j + 1]!++;
  for (let j = 0; j < n; j++) start[j + 1]! += start[j]!;
  const fill = start.slice(0, n);
  const dependents = new Int32Array(from.length);
  for (let e = 0; e < from.length; e++) dependents[fill[from[e]!]!++] = to[e]!;
  const queue: number[] = [];
  for (let i = 0; i < n; i++) if (indegree[i] === 0) queue.push(i);
  const order: Address[] = [];
  for (let head = 0; head < queue.length; head++) {
    const i = queue[head]!;
    order.push(list[i]!.address);
    for (let e = start[i]!; e < start[i + 1]!; e++) {
      const d = dependents[e]!;
      if (--indegree[d]! === 0) queue.push(d);
    }
  }
  if (order.length === n) return { order };
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
