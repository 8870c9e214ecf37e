/**
 * An index of service ids by environment, so that per-environment work (built-in variables, the
 * one-call `GET /environment/{id}/statuses`) costs O(services of that environment) instead of a
 * scan of every service: through the persistence proxies a scan of 5,000 services takes ~4 ms.
 *
 * Built from the state on first use, then kept current by the context's events: `created`
 * (emitted by `createServiceStatus`, which every service creation calls) and `deleted`. Reads
 * drop ids whose record is gone, so a missed deletion cannot return a ghost.
 */
import type { EmulatorContext } from '../context.js';
import type { ApiRecord, EmulatorState } from '../state.js';
import { environmentIdOfService } from './scopes.js';

export class ServicesByEnvironment {
  readonly #state: EmulatorState;
  readonly #byEnv = new Map<string, Set<string>>();
  readonly #envOf = new Map<string, string>();

  constructor(state: EmulatorState) {
    this.#state = state;
    for (const svc of Object.values(state.services)) this.add(svc);
  }

  add(svc: ApiRecord): void {
    const envId = environmentIdOfService(svc);
    if (!envId) return;
    this.remove(svc.id);
    let set = this.#byEnv.get(envId);
    if (!set) this.#byEnv.set(envId, (set = new Set()));
    set.add(svc.id);
    this.#envOf.set(svc.id, envId);
  }

  remove(serviceId: string): string | undefined {
    const envId = this.#envOf.get(serviceId);
    if (envId === undefined) return undefined;
    this.#envOf.delete(serviceId);
    const set = this.#byEnv.get(envId);
    set?.delete(serviceId);
    if (set && set.size === 0) this.#byEnv.delete(envId);
    return envId;
  }

  environmentOf(serviceId: string): string | undefined {
    return this.#envOf.get(serviceId);
  }

  /** The environment's services, in creation order. */
  of(environmentId: string): ApiRecord[] {
    const ids = this.#byEnv.get(environmentId);
    if (!ids) return [];
    const services = this.#state.services;
    const out: ApiRecord[] = [];
    for (const id of ids) {
      const svc = services[id];
      if (svc) out.push(svc);
    }
    return out;
  }

  /** Every environment id that has services. */
  environments(): string[] {
    return [...this.#byEnv.keys()];
  }
}

const indexes = new WeakMap<EmulatorState, ServicesByEnvironment>();

export function servicesIndex(state: EmulatorState): ServicesByEnvironment {
  let idx = indexes.get(state);
  if (!idx) indexes.set(state, (idx = new ServicesByEnvironment(state)));
  return idx;
}

/** Keeps the index of this emulator current. Returns the listeners' removers. */
export function trackServices(ctx: EmulatorContext, onChange?: (serviceId: string, environmentId: string | undefined) => void): Array<() => void> {
  const idx = servicesIndex(ctx.state);
  return [
    ctx.events.on('created', ({ id }) => {
      const svc = ctx.state.services[id];
      if (svc) idx.add(svc);
      onChange?.(id, svc ? environmentIdOfService(svc) : undefined);
    }),
    ctx.events.on('deleted', ({ kind, id }) => {
      if (kind !== 'service') return;
      const envId = idx.remove(id);
      onChange?.(id, envId);
    }),
    ctx.events.on('serviceConfigChanged', ({ service_id }) => {
      onChange?.(service_id, idx.environmentOf(service_id));
    }),
  ];
}
