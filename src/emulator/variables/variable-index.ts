/**
 * An index of `state.variables` by parent and by alias/override target, so that listing the
 * variables a service sees costs O(its own + inherited variables), not O(every variable).
 *
 * Stored variable records carry two internal fields that the renderers never output:
 *   `parent_id` — the project, environment or service the variable belongs to;
 *   `target_id` — for ALIAS and OVERRIDE records, the variable they point to.
 *
 * The index is rebuilt from the state the first time it is needed (start-up, restart with
 * --data) and then maintained by `put` / `remove`, which are the only way variables are written.
 */
import type { ApiRecord, EmulatorState } from '../state.js';

export class VariableIndex {
  readonly #state: EmulatorState;
  readonly #byParent = new Map<string, Set<string>>();
  readonly #byTarget = new Map<string, Set<string>>();

  constructor(state: EmulatorState) {
    this.#state = state;
    for (const v of Object.values(state.variables)) this.#link(v);
  }

  get(id: string): ApiRecord | undefined {
    return Object.hasOwn(this.#state.variables, id) ? this.#state.variables[id] : undefined;
  }

  /** Variables whose parent is `parentId`, in creation order. */
  ofParent(parentId: string): ApiRecord[] {
    return this.#resolve(this.#byParent.get(parentId));
  }

  /** Aliases and overrides pointing at `targetId`. */
  dependentsOf(targetId: string): ApiRecord[] {
    return this.#resolve(this.#byTarget.get(targetId));
  }

  put(record: ApiRecord, secretValue?: string): void {
    const previous = this.get(record.id);
    if (previous) this.#unlink(previous);
    this.#state.variables[record.id] = record;
    if (secretValue !== undefined) this.#state.secretValues[record.id] = secretValue;
    this.#link(record);
  }

  remove(id: string): void {
    const previous = this.get(id);
    if (!previous) return;
    this.#unlink(previous);
    delete this.#state.variables[id];
    if (Object.hasOwn(this.#state.secretValues, id)) delete this.#state.secretValues[id];
  }

  #resolve(ids: Set<string> | undefined): ApiRecord[] {
    if (!ids) return [];
    const out: ApiRecord[] = [];
    for (const id of ids) {
      const v = this.get(id);
      if (v) out.push(v);
    }
    return out;
  }

  #link(v: ApiRecord): void {
    addTo(this.#byParent, v.parent_id, v.id);
    if (v.target_id) addTo(this.#byTarget, v.target_id, v.id);
  }

  #unlink(v: ApiRecord): void {
    removeFrom(this.#byParent, v.parent_id, v.id);
    if (v.target_id) removeFrom(this.#byTarget, v.target_id, v.id);
  }
}

function addTo(m: Map<string, Set<string>>, key: string | undefined, id: string): void {
  if (!key) return;
  let s = m.get(key);
  if (!s) m.set(key, (s = new Set()));
  s.add(id);
}

function removeFrom(m: Map<string, Set<string>>, key: string | undefined, id: string): void {
  if (!key) return;
  const s = m.get(key);
  if (!s) return;
  s.delete(id);
  if (s.size === 0) m.delete(key);
}

const indexes = new WeakMap<EmulatorState, VariableIndex>();

/** The index of this state document, built on first use. */
export function variableIndex(state: EmulatorState): VariableIndex {
  let idx = indexes.get(state);
  if (!idx) indexes.set(state, (idx = new VariableIndex(state)));
  return idx;
}
