/**
 * The emulator's context: everything a route module or a background operation needs, injected so
 * that nothing in src/emulator reaches for globals (clock, ids, randomness, output streams).
 *
 * One context per running emulator. Route plugins receive it as their second argument
 * (see routes/index.ts and README.md).
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { ApiRecord, EmulatorState } from './state.js';

export interface EmulatorOptions {
  /** Requests allowed per token per window (seed 8: 1000 per hour). */
  rateLimit: number;
  rateWindowS: number;
  /** Added to every response. */
  latencyMs: number;
  /** Fraction [0,1] of requests that fail with 500/503 or a dropped connection. */
  faultRate: number;
  /** Seed of the fault RNG, so chaos runs are reproducible. */
  faultSeed: number;
  /** Total duration of one simulated deployment (ops). */
  deployDurationMs: number;
  /** Glob of service names whose deployments fail (ops). */
  failDeployGlob?: string;
  /** Largest accepted request body, bytes (larger: 413). */
  bodyLimitBytes: number;
  /** Audit log retention (`--audit-retention`); the organization's, when shorter or unset. */
  auditRetentionMs?: number;
  /** At most this many audit events are kept, the oldest going first (bounds memory and the --data file). */
  auditMaxEvents: number;
  /**
   * `--audit-drop RATE`: that fraction [0,1] of audit events is never recorded, as a real log may
   * miss them (drawn from a generator seeded by `faultSeed`, so a test is reproducible).
   */
  auditDropRate: number;
  /** `--audit-delay DURATION`: an event is listed only this long after its write, with the write's timestamp. */
  auditDelayMs: number;
}

export const DEFAULT_OPTIONS: EmulatorOptions = {
  rateLimit: 1000,
  rateWindowS: 3600,
  latencyMs: 0,
  faultRate: 0,
  faultSeed: 1,
  deployDurationMs: 3000,
  failDeployGlob: undefined,
  bodyLimitBytes: 1024 * 1024,
  auditRetentionMs: undefined,
  auditMaxEvents: 50_000,
  auditDropRate: 0,
  auditDelayMs: 0,
};

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Writes one line to stderr (or wherever injected). Callers must never pass secrets. */
export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

export function lineLogger(write: (s: string) => void): Logger {
  const line = (level: string, msg: string) => write(`${new Date().toISOString()} ${level} ${msg}\n`);
  return { info: (m) => line('info', m), warn: (m) => line('warn', m), error: (m) => line('error', m) };
}

/** Event emitted by the ops half when a deployment starts / succeeds / fails (webhooks listen). */
export interface DeploymentEvent {
  event_type: 'DEPLOYMENT_STARTED' | 'DEPLOYMENT_SUCCEEDED' | 'DEPLOYMENT_FAILED';
  service_id: string;
  service_type: string;
  service_name: string;
  environment_id: string;
  project_id: string;
  organization_id: string;
  execution_id: string;
  at: string;
}

export interface EmulatorEvents {
  deployment: DeploymentEvent;
  /** A resource was removed by a CRUD route (cascade cleanup of variables etc. listens). */
  deleted: { kind: string; id: string };
  /** A service was created (its record is in state.services): indexes and built-in variables follow. */
  created: { kind: 'service'; id: string };
  /**
   * A service was edited (PUT). `redeploy` false: only its description or icon changed (or
   * nothing), so a deployed service stays UP_TO_DATE; otherwise it becomes OUT_OF_DATE.
   */
  serviceConfigChanged: { service_id: string; redeploy?: boolean };
}

export class EventBus {
  readonly #ee = new EventEmitter();
  constructor() {
    this.#ee.setMaxListeners(100);
  }
  on<K extends keyof EmulatorEvents>(name: K, fn: (e: EmulatorEvents[K]) => void): () => void {
    this.#ee.on(name, fn);
    return () => this.#ee.off(name, fn);
  }
  emit<K extends keyof EmulatorEvents>(name: K, e: EmulatorEvents[K]): void {
    this.#ee.emit(name, e);
  }
}

/**
 * Seams between the CRUD half and the ops half (asynchronous operations). The CRUD half provides
 * synchronous defaults so it works on its own; the ops half replaces them when it registers.
 */
export interface OpsHooks {
  /**
   * Delete a service (DELETE /<kind>/{id}, POST /environment/{id}/service/delete, environment
   * deletion). Default: removes it at once. Ops replaces it with DELETE_QUEUED -> DELETING -> gone.
   */
  deleteService(ctx: EmulatorContext, serviceId: string): void;
  /** A service's configuration changed; default: a deployed service becomes OUT_OF_DATE. */
  markOutOfDate(ctx: EmulatorContext, serviceId: string): void;
}

export interface EmulatorContext {
  state: EmulatorState;
  options: EmulatorOptions;
  clock: Clock;
  /** ISO timestamp of clock.now(). */
  nowIso(): string;
  newId(): string;
  /**
   * Makes every change to `state` since the last commit durable (with --data) before returning.
   * Called automatically before each HTTP response is sent; background work (timers) must call it
   * after changing state. Changes are noticed by assignment: `state.services[id] = record` (see
   * persistence.ts), so mutate a record, then assign it back.
   */
  commit(): void;
  /**
   * The same, for a request about to be acknowledged: the changes are written at once and the
   * promise resolves when they are on disk. Concurrent requests share one fsync (group commit).
   */
  commitForAck(): Promise<void>;
  events: EventBus;
  hooks: OpsHooks;
  logger: Logger;
  /** Timers started by background work; cleared on close(). */
  timers: Set<NodeJS.Timeout>;
  /** Schedules background work that is cancelled when the emulator closes. */
  later(ms: number, fn: () => void): void;
  /** Waits (the --latency delay); injectable so tests can observe it without timing anything. */
  sleep(ms: number): Promise<void>;
}

export interface ContextParts {
  state: EmulatorState;
  options?: Partial<EmulatorOptions>;
  clock?: Clock;
  newId?: () => string;
  commit?: () => void;
  commitForAck?: () => Promise<void>;
  logger?: Logger;
  hooks?: Partial<OpsHooks>;
  sleep?: (ms: number) => Promise<void>;
}

export function createContext(parts: ContextParts): EmulatorContext {
  const clock = parts.clock ?? systemClock;
  const timers = new Set<NodeJS.Timeout>();
  const ctx: EmulatorContext = {
    state: parts.state,
    options: { ...DEFAULT_OPTIONS, ...stripUndefined(parts.options ?? {}) },
    clock,
    nowIso: () => clock.now().toISOString(),
    newId: parts.newId ?? randomUUID,
    commit: parts.commit ?? (() => {}),
    commitForAck: parts.commitForAck ?? (async () => (parts.commit ?? (() => {}))()),
    events: new EventBus(),
    hooks: { ...defaultHooks, ...(parts.hooks ?? {}) },
    logger: parts.logger ?? silentLogger,
    timers,
    sleep: parts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    later(ms, fn) {
      const t = setTimeout(() => {
        timers.delete(t);
        try {
          fn();
        } catch (err) {
          ctx.logger.error(`background task failed: ${(err as Error)?.message ?? 'error'}`);
        }
      }, ms);
      timers.add(t);
    },
  };
  return ctx;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Removes a service and everything hanging off it (status, stage membership, settings). */
export function removeServiceNow(ctx: EmulatorContext, serviceId: string): void {
  const s = ctx.state;
  if (!s.services[serviceId]) return;
  delete s.services[serviceId];
  delete s.serviceStatuses[serviceId];
  delete s.advancedSettings[serviceId];
  for (const stage of Object.values(s.deploymentStages)) {
    const services = (stage.services ?? []) as ApiRecord[];
    if (services.some((m) => m.service_id === serviceId)) {
      s.deploymentStages[stage.id] = { ...stage, services: services.filter((m) => m.service_id !== serviceId) };
    }
  }
  ctx.events.emit('deleted', { kind: 'service', id: serviceId });
}

const defaultHooks: OpsHooks = {
  deleteService: (ctx, id) => removeServiceNow(ctx, id),
  markOutOfDate(ctx, id) {
    const st = ctx.state.serviceStatuses[id];
    if (st && st.service_deployment_status === 'UP_TO_DATE') {
      ctx.state.serviceStatuses[id] = { ...st, service_deployment_status: 'OUT_OF_DATE' };
    }
  },
};
