/**
 * executeSteps: runs a dependency graph of steps with bounded parallelism.
 *
 * Pure scheduling: what a step does is injected (`run`), so this module knows nothing about HTTP.
 * Invariants:
 *  - a step starts only after every step it depends on has succeeded;
 *  - a failed step skips everything that depends on it (transitively); independent steps go on;
 *  - once the signal is aborted (or `halted()` says so) no new step starts; steps already running
 *    are awaited, never abandoned, so the result always says truthfully what was done;
 *  - among ready steps, the one heading the longest remaining chain goes first (critical path
 *    first: the chain's length is the sum of the `weight`s along it, so a step that a long wait
 *    such as a deployment depends on is not queued behind hundreds of unrelated writes); among
 *    equally heavy chains, the step that more steps wait for (a stage its services move into);
 *    then the caller's order (the graph's topological order), so runs with parallelism 1 are
 *    deterministic;
 *  - `background` steps (waits on the platform: a deployment being polled) do not take one of
 *    the `parallelism` places, so configuration writes go on while a deployment runs.
 */

export interface Step {
  /** Unique id (usually `<action> <address>`). */
  id: string;
  /** Ids of steps that must succeed first. Unknown ids are a programming error. */
  dependsOn: readonly string[];
  run: (signal: AbortSignal) => Promise<void>;
  /** Relative duration, for critical-path-first scheduling; default 1. */
  weight?: number;
  /** Mostly waiting (one request per poll): does not count against `parallelism`. */
  background?: boolean;
}

export interface StepFailure {
  id: string;
  error: unknown;
}

export interface StepSkip {
  id: string;
  /** The failed (or skipped) step that made this one impossible. */
  because: string;
}

export interface ExecutionResult {
  /** Succeeded, in completion order. */
  applied: string[];
  failed: StepFailure[];
  /** Not run because a dependency failed. */
  skipped: StepSkip[];
  /** Not run because the run was interrupted before they could start. */
  notStarted: string[];
  interrupted: boolean;
}

export interface ExecuteOptions {
  /** Steps running at once; at least 1. */
  parallelism?: number;
  signal?: AbortSignal;
  /**
   * Checked before each start: once true, no new step starts (like an abort, but the run is not
   * "interrupted": e.g. the token was refused, so every further request would be too).
   */
  halted?: () => boolean;
  onStepStart?: (id: string) => void;
  onStepEnd?: (id: string, outcome: { ok: true } | { ok: false; error: unknown }) => void;
}

export const DEFAULT_PARALLELISM = 8;

export async function executeSteps(steps: readonly Step[], opts: ExecuteOptions = {}): Promise<ExecutionResult> {
  const parallelism = Math.max(1, Math.floor(opts.parallelism ?? DEFAULT_PARALLELISM));
  const byId = new Map<string, Step>();
  for (const s of steps) {
    if (byId.has(s.id)) throw new Error(`executeSteps: duplicate step id ${s.id}`);
    byId.set(s.id, s);
  }
  const dependents = new Map<string, string[]>();
  const waitingOn = new Map<string, number>();
  for (const s of steps) {
    for (const d of new Set(s.dependsOn)) {
      if (!byId.has(d)) throw new Error(`executeSteps: step ${s.id} depends on unknown step ${d}`);
      const list = dependents.get(d);
      if (list) list.push(s.id);
      else dependents.set(d, [s.id]);
    }
    waitingOn.set(s.id, new Set(s.dependsOn).size);
  }
  assertAcyclic(steps, byId);

  const position = new Map(steps.map((s, i) => [s.id, i]));
  const rank = remainingChain(steps, dependents);
  const fanOut = (id: string) => dependents.get(id)?.length ?? 0;
  const before = (a: string, b: string) => rank.get(b)! - rank.get(a)! || fanOut(b) - fanOut(a) || position.get(a)! - position.get(b)!;
  const ready = new MinHeap<string>(before);
  const readyBackground = new MinHeap<string>(before);
  const markReady = (id: string) => (byId.get(id)!.background ? readyBackground : ready).push(id);
  for (const s of steps) if (waitingOn.get(s.id) === 0) markReady(s.id);
  const result: ExecutionResult = { applied: [], failed: [], skipped: [], notStarted: [], interrupted: false };
  const done = new Set<string>();
  const running = new Map<string, Promise<void>>();
  let foreground = 0;
  const signal = opts.signal ?? new AbortController().signal;
  const stopped = () => signal.aborted || opts.halted?.() === true;

  const skipDependentsOf = (root: string): void => {
    const queue = [root];
    while (queue.length > 0) {
      const cur = queue.shift()!;
      for (const dep of dependents.get(cur) ?? []) {
        if (done.has(dep)) continue;
        done.add(dep);
        result.skipped.push({ id: dep, because: root });
        queue.push(dep);
      }
    }
  };

  const start = (id: string): void => {
    const step = byId.get(id)!;
    if (!step.background) foreground++;
    opts.onStepStart?.(id);
    const p = (async () => {
      try {
        await step.run(signal);
        done.add(id);
        result.applied.push(id);
        opts.onStepEnd?.(id, { ok: true });
        for (const dep of dependents.get(id) ?? []) {
          const left = waitingOn.get(dep)! - 1;
          waitingOn.set(dep, left);
          if (left === 0 && !done.has(dep)) markReady(dep);
        }
      } catch (error) {
        done.add(id);
        result.failed.push({ id, error });
        opts.onStepEnd?.(id, { ok: false, error });
        skipDependentsOf(id);
      } finally {
        running.delete(id);
        if (!step.background) foreground--;
      }
    })();
    running.set(id, p);
  };

  for (;;) {
    // Background steps start as soon as they are ready; the others while a place is free.
    while (!stopped() && readyBackground.size > 0) {
      const id = readyBackground.pop()!;
      if (!done.has(id)) start(id);
    }
    while (!stopped() && foreground < parallelism && ready.size > 0) {
      const id = ready.pop()!;
      if (!done.has(id)) start(id);
    }
    if (running.size === 0) break;
    await Promise.race(running.values());
  }

  if (signal.aborted) result.interrupted = true;
  for (const s of steps) if (!done.has(s.id)) result.notStarted.push(s.id);
  if (result.notStarted.length > 0 && !stopped()) {
    // Only reachable if the graph had a cycle, which assertAcyclic rules out.
    throw new Error(`executeSteps: steps never became ready: ${result.notStarted.join(', ')}`);
  }
  return result;
}

/**
 * For each step, the heaviest chain from it to the end of the graph (its own weight plus the
 * heaviest chain among its dependents). Iterative, in reverse topological order, so deep graphs
 * of thousands of steps cannot overflow the stack. `dependents` lists each dependent once.
 */
function remainingChain(steps: readonly Step[], dependents: Map<string, string[]>): Map<string, number> {
  const rank = new Map<string, number>();
  const pending = new Map(steps.map((s) => [s.id, (dependents.get(s.id) ?? []).length]));
  const byId = new Map(steps.map((s) => [s.id, s]));
  const queue = steps.filter((s) => pending.get(s.id) === 0).map((s) => s.id);
  while (queue.length > 0) {
    const id = queue.pop()!;
    const s = byId.get(id)!;
    let heaviest = 0;
    for (const d of dependents.get(id) ?? []) heaviest = Math.max(heaviest, rank.get(d)!);
    rank.set(id, Math.max(0, s.weight ?? 1) + heaviest);
    for (const dep of new Set(s.dependsOn)) {
      const left = pending.get(dep)! - 1;
      pending.set(dep, left);
      if (left === 0) queue.push(dep);
    }
  }
  return rank;
}

function assertAcyclic(steps: readonly Step[], byId: Map<string, Step>): void {
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string, path: string[]): void => {
    const st = state.get(id);
    if (st === 'done') return;
    if (st === 'visiting') throw new Error(`executeSteps: dependency cycle: ${[...path, id].join(' -> ')}`);
    state.set(id, 'visiting');
    for (const d of byId.get(id)!.dependsOn) visit(d, [...path, id]);
    state.set(id, 'done');
  };
  for (const s of steps) visit(s.id, []);
}

/** A binary min-heap: ready steps come out in scheduling order in O(log n), whatever their number. */
class MinHeap<T> {
  readonly #items: T[] = [];
  constructor(private readonly cmp: (a: T, b: T) => number) {}

  get size(): number {
    return this.#items.length;
  }

  push(x: T): void {
    const a = this.#items;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.cmp(a[i]!, a[parent]!) >= 0) break;
      [a[i], a[parent]] = [a[parent]!, a[i]!];
      i = parent;
    }
  }

  pop(): T | undefined {
    const a = this.#items;
    if (a.length === 0) return undefined;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.cmp(a[l]!, a[m]!) < 0) m = l;
        if (r < a.length && this.cmp(a[r]!, a[m]!) < 0) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}
