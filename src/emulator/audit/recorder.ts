/**
 * Records an audit event for every write, in one place: each request runs in a "window"
 * (AsyncLocalStorage), the state is wrapped so that the first assignment or deletion of a record of
 * an audited collection during the window keeps the record as it was, and when the request is
 * answered the (before, now) pairs become events (targets.ts says which, and of what target). No
 * route records anything itself, so a new route's writes are in the log without a line of code.
 *
 * Work that is not a write of the request's configuration runs `quietly`: operations
 * (deploy, stop, restart, delete and their outcomes) record their own events (ops/audit.ts), and
 * their timers outlive the request.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { EmulatorContext } from '../context.js';
import type { EmulatorState } from '../state.js';
import type { Identity } from './identity.js';
import { auditLog } from './log.js';
import { AUDITED_COLLECTIONS, eventsOfChanges, type RecordChange } from './targets.js';

export interface AuditWindow {
  identity: Identity;
  userAgent: string | null;
  /** `collection\0key` -> the value before the first write of the window (undefined: absent). */
  before: Map<string, { c: string; k: string; v: unknown }>;
  closed: boolean;
}

const windows = new AsyncLocalStorage<AuditWindow | undefined>();

export function openWindow(identity: Identity, userAgent: string | null): AuditWindow {
  return { identity, userAgent, before: new Map(), closed: false };
}

/** Runs `fn` (and everything it continues into: fastify's hooks and handler) inside the window. */
export function runInWindow<T>(w: AuditWindow, fn: () => T): T {
  return windows.run(w, fn);
}

/** Runs `fn` outside any window: its writes are not the request's configuration writes. */
export function quietly<T>(fn: () => T): T {
  return windows.run(undefined, fn);
}

/** The identity of the request being handled, if any (operations record it with their trigger). */
export function currentIdentity(): { identity: Identity; userAgent: string | null } | undefined {
  const w = windows.getStore();
  return w && !w.closed ? { identity: w.identity, userAgent: w.userAgent } : undefined;
}

function remember(c: string, k: string, holder: Record<string, unknown>): void {
  const w = windows.getStore();
  if (!w || w.closed) return;
  const key = `${c}\u0000${k}`;
  if (!w.before.has(key)) w.before.set(key, { c, k, v: Object.prototype.hasOwnProperty.call(holder, k) ? holder[k] : undefined });
}

/** Wraps the state so that writes inside a window are remembered (reads pass straight through). */
export function auditedState(state: EmulatorState): EmulatorState {
  const audited = new Set<string>(AUDITED_COLLECTIONS);
  const proxies = new Map<string, { target: object; proxy: object }>();
  const collection = (c: string, target: Record<string, unknown>): object => {
    const hit = proxies.get(c);
    if (hit && hit.target === target) return hit.proxy;
    const proxy = new Proxy(target, {
      set(t, prop, value) {
        if (typeof prop === 'string') remember(c, prop, t);
        return Reflect.set(t, prop, value);
      },
      deleteProperty(t, prop) {
        if (typeof prop === 'string') remember(c, prop, t);
        return Reflect.deleteProperty(t, prop);
      },
    });
    proxies.set(c, { target, proxy });
    return proxy;
  };
  return new Proxy(state as unknown as Record<string, unknown>, {
    get(t, prop) {
      const v = Reflect.get(t, prop);
      if (typeof prop === 'string' && audited.has(prop) && v && typeof v === 'object') return collection(prop, v as Record<string, unknown>);
      return v;
    },
    set(t, prop, value) {
      if (prop === 'organization') remember('', 'organization', t);
      return Reflect.set(t, prop, value);
    },
  }) as unknown as EmulatorState;
}

/** Ends the window: its writes become events, appended to the log. */
export function closeWindow(ctx: EmulatorContext, w: AuditWindow): void {
  if (w.closed) return;
  w.closed = true;
  if (w.before.size === 0) return;
  const changes: RecordChange[] = [];
  const s = ctx.state as unknown as Record<string, Record<string, unknown>>;
  for (const { c, k, v } of w.before.values()) {
    const now = c === '' ? (s as Record<string, unknown>)[k] : s[c]?.[k];
    changes.push({ collection: c === '' ? k : c, key: k, before: v as any, after: now as any });
  }
  const log = auditLog(ctx);
  for (const e of eventsOfChanges(ctx.state, changes)) log.append({ ...e, origin: w.identity.origin, triggered_by: w.identity.triggered_by, user_agent: w.userAgent, original_change: null });
}
