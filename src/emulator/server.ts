/**
 * Starts an emulator on a real socket: `startEmulator(options)` is what tests, the demo and
 * `driftless serve` call. It loads the state (--data file, else --seed fixture over the default
 * seed), wires persistence, builds the app and listens (127.0.0.1, port 0 = any free port).
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createContext, type Clock, type EmulatorContext, type EmulatorOptions, type Logger, silentLogger, systemClock } from './context.js';
import { buildApp } from './app.js';
import { LISTEN_BACKLOG } from './http-server.js';
import { DataFile, trackState } from './persistence.js';
import { defaultHelmRepositories, defaultState, mergeSeed, tokensByScope, withConsoleToken, type StartupTokens } from './seed.js';
import type { EmulatorState, TokenScope } from './state.js';

export interface StartOptions extends Partial<EmulatorOptions> {
  host?: string;
  port?: number;
  /** Persist to this file (and FILE.journal). */
  dataFile?: string;
  /** JSON fixture merged over the default seed (ignored when dataFile already holds a state). */
  seedFile?: string;
  /** Same as seedFile, given as a value. */
  seed?: Partial<EmulatorState>;
  clock?: Clock;
  logger?: Logger;
  /** How --latency waits (default: a timer). */
  sleep?: (ms: number) => Promise<void>;
}

export interface RunningEmulator {
  url: string;
  organizationId: string;
  /** One API token per scope, and CONSOLE: the console user's Bearer JWT. */
  tokens: StartupTokens;
  /** Live state (tests may read it; writes through it are not journalled unless ctx.commit() is called). */
  state: EmulatorState;
  ctx: EmulatorContext;
  app: FastifyInstance;
  close(): Promise<void>;
}

export class EmulatorStartError extends Error {}

export async function startEmulator(options: StartOptions = {}): Promise<RunningEmulator> {
  const drop = options.auditDropRate;
  if (drop !== undefined && !(drop >= 0 && drop <= 1)) throw new EmulatorStartError(`auditDropRate (--audit-drop) must be a number from 0 to 1, got ${String(drop)}`);
  const delay = options.auditDelayMs;
  if (delay !== undefined && !(delay >= 0 && Number.isFinite(delay))) throw new EmulatorStartError(`auditDelayMs (--audit-delay) must be a duration of 0 ms or more, got ${String(delay)}`);
  const clock = options.clock ?? systemClock;
  const nowIso = () => clock.now().toISOString();
  let raw: EmulatorState | undefined;
  let data: DataFile | undefined;
  if (options.dataFile) {
    data = new DataFile(options.dataFile);
    try {
      raw = data.load();
    } catch (err) {
      throw new EmulatorStartError((err as Error).message);
    }
  }
  if (!raw) {
    raw = defaultState({ newId: randomUUID, nowIso });
    let fixture: unknown = options.seed;
    if (options.seedFile) {
      try {
        fixture = JSON.parse(readFileSync(options.seedFile, 'utf8'));
      } catch (err) {
        throw new EmulatorStartError(`cannot read seed ${options.seedFile}: ${(err as Error).message}`);
      }
    }
    if (fixture !== undefined) {
      try {
        raw = mergeSeed(raw, fixture, options.seedFile ?? 'option');
      } catch (err) {
        throw new EmulatorStartError((err as Error).message);
      }
    }
  }

  // A --data file written before the emulator had helm repositories: give it the default ones
  // (the snapshot below folds them into the file).
  if (!raw.helmRepositories) raw.helmRepositories = defaultHelmRepositories({ newId: randomUUID, nowIso });
  // Nor the audit log and the console user (tokens.CONSOLE of the start-up line).
  raw.auditEvents ??= {};
  raw.auditDroppedThrough ??= null;
  withConsoleToken(raw);

  let state = raw;
  let commit = () => {};
  let commitForAck: (() => Promise<void>) | undefined;
  if (data) {
    const tracked = trackState(raw);
    const rawState = raw;
    const file = data;
    state = tracked.state;
    // Background work (deployment timers) commits from the event loop: the journal line is written
    // at once (order kept) and its fdatasync runs on the thread pool, grouped with the requests'
    // syncs. A blocking fdatasync per timer tick stalled every connection of a burst.
    commit = () => {
      file.appendGrouped(tracked.takeDirty(), rawState).catch((err: NodeJS.ErrnoException) => {
        (options.logger ?? silentLogger).error(`cannot sync the data file ${file.journalPath}: ${err.code ?? err.message}`);
      });
    };
    commitForAck = () => file.appendGrouped(tracked.takeDirty(), rawState);
    try {
      data.snapshot(raw); // fold any replayed journal into a fresh snapshot
    } catch (err) {
      throw new EmulatorStartError(`cannot write data file ${options.dataFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }

  const ctx = createContext({
    state,
    clock,
    commit,
    commitForAck,
    logger: options.logger,
    sleep: options.sleep,
    options: {
      rateLimit: options.rateLimit,
      rateWindowS: options.rateWindowS,
      latencyMs: options.latencyMs,
      faultRate: options.faultRate,
      faultSeed: options.faultSeed,
      deployDurationMs: options.deployDurationMs,
      failDeployGlob: options.failDeployGlob,
      bodyLimitBytes: options.bodyLimitBytes,
      auditRetentionMs: options.auditRetentionMs,
      auditMaxEvents: options.auditMaxEvents,
      auditDropRate: options.auditDropRate,
      auditDelayMs: options.auditDelayMs,
    },
  });
  const app = await buildApp(ctx);
  const host = options.host ?? '127.0.0.1';
  // A burst of connections must queue, not be dropped: see http-server.ts.
  await app.listen({ host, port: options.port ?? 0, backlog: LISTEN_BACKLOG });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : options.port ?? 0;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closed = false;
  return {
    url: `http://${urlHost}:${port}`,
    organizationId: state.organization.id,
    tokens: tokensByScope(state),
    // The state as routes see it (audited: see audit/recorder.ts), so indexes keyed by it are shared.
    state: ctx.state,
    ctx,
    app,
    async close() {
      if (closed) return;
      closed = true;
      for (const t of ctx.timers) clearTimeout(t);
      ctx.timers.clear();
      await app.close();
      if (data) {
        ctx.commit();
        await data.settled();
        data.snapshot(raw as EmulatorState);
        data.close();
      }
    },
  };
}
