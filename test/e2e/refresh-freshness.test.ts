/**
 * A refresh cache that may be late, never wrong for long (issue 18, DESIGN.md principle 8), end to
 * end against the emulator: the cursor is on the server's clock (a machine whose clock is fast, or
 * a steady skew, blinds no run; a forged cursor is a full read), an event the log shows late is
 * still read (the overlap window), an edit the log never records is found by the rotation of
 * --verify-requests within ceil(lists / N) warm runs and said, --max-cache-age bounds the rest; and
 * the events endpoint is read as the reference allows it to answer (issue 19).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { editApplicationCpu, editProjectVariable } from '../../src/demo/console.js';
import { portFromClient } from '../../src/live/api-port.js';
import { cacheFilePath, readCacheFile, writeCacheFile } from '../../src/live/cache-file.js';
import type { LiveSnapshot } from '../../src/live/refresh.js';
import { packageVersion } from '../../src/cli/package-version.js';
import type { Clock } from '../../src/emulator/context.js';
import { FAST, startHarness, type Harness } from './helpers.js';
import { SECRET_ENV, appManifest } from './fixtures.js';
import { startEventsProxy, type EventsProxy } from '../support/events-proxy.js';

let h: Harness | undefined;
let proxy: EventsProxy | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await proxy?.close();
  proxy = undefined;
  await h?.close();
  h = undefined;
});

const HOUR = 3_600_000;
/** Real time, whatever a faked Date says: the emulator's clock when this machine's is the one off. */
const realNow = () => performance.timeOrigin + performance.now();

/** The API's clock `offsetMs` from the real time (negative: behind this machine's). */
const apiClock = (offsetMs: number): Clock => ({ now: () => new Date(realNow() + offsetMs) });

/** An applied organization, and a proxy in front of it whose events answers a test may rewrite. */
async function setUp(clock?: Clock): Promise<Harness> {
  h = await startHarness({ refreshCache: false, ...(clock ? { clock } : {}) });
  h.write({ 'm/main.yaml': appManifest() });
  const applied = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV });
  expect(applied.code, applied.stderr).toBe(0);
  proxy = await startEventsProxy(h.emu.url);
  return h;
}

const viaProxy = () => ({ ...SECRET_ENV, DRIFTLESS_API_URL: proxy!.url, DRIFTLESS_CACHE_DIR: '' });
const plan = (...more: string[]) => h!.run(['plan', 'm', '--format', 'json', '--cache', 'cache', ...more], { env: viaProxy() });
const fullPlan = () => h!.run(['plan', 'm', '--format', 'json'], { env: viaProxy() });

function changesOf(stdout: string): unknown {
  const p = JSON.parse(stdout);
  return { summary: p.summary, resource_changes: p.resource_changes };
}

function updated(stdout: string): string[] {
  return (JSON.parse(stdout).resource_changes as Array<{ address: string; change: { actions: string[] } }>).filter((c) => c.change.actions.includes('update')).map((c) => c.address).sort();
}

function fullReadLine(stderr: string): string | undefined {
  return stderr.split('\n').find((l) => l.startsWith('Full read of the live state: '));
}

/** A console user's edit, straight to the API; returns the ids of the audit events it wrote. */
async function consoleEdit(edit: (api: ReturnType<typeof portFromClient>, org: string) => Promise<unknown>): Promise<string[]> {
  const before = new Set(Object.keys(h!.emu.state.auditEvents));
  const client = createApiClient({ baseUrl: h!.emu.url, token: h!.emu.tokens.CONSOLE!, authScheme: 'Bearer' });
  try {
    await edit(portFromClient(client), h!.emu.organizationId);
  } finally {
    await client.close();
  }
  return Object.keys(h!.emu.state.auditEvents).filter((id) => !before.has(id));
}

const editLogLevel = (value: string) => consoleEdit((api, org) => editProjectVariable(api, org, 'e2e', 'LOG_LEVEL', value));
const editCpu = (cpu: number) => consoleEdit((api, org) => editApplicationCpu(api, org, 'e2e', 'dev', 'api', cpu));
/** The project's description: an event that makes no list of the environment's stale. */
const editDescription = (description: string) =>
  consoleEdit(async (api) => {
    const project = Object.values(h!.emu.state.projects).find((p) => p.name === 'e2e')!;
    await api.put(`/project/${project.id}`, { name: 'e2e', description });
  });

const identity = () => ({ apiUrl: proxy!.url, driftlessVersion: packageVersion(), keyOf: () => ({ key: h!.env.DRIFTLESS_FINGERPRINT_KEY!, source: 'env' as const }) });
const cacheDir = () => join(h!.dir, 'cache');
function snapshot(): LiveSnapshot {
  const s = readCacheFile(cacheDir(), identity());
  if ('unusable' in s) throw new Error(s.unusable);
  return s;
}

describe("the cursor is on the server's clock", () => {
  it('a run on a machine whose clock is 2 hours fast does not blind the later runs', async () => {
    await setUp(apiClock(0));
    // This machine's clock runs 2 hours ahead for one cold and one warm run (the API's stays right).
    vi.useFakeTimers({ toFake: ['Date'], now: realNow() + 2 * HOUR });
    expect((await plan()).code).toBe(0);
    const fast = await plan();
    expect(fast.code, fast.stderr).toBe(0);
    expect(fullReadLine(fast.stderr)).toBeUndefined();
    vi.useRealTimers();
    // Then edits in the console, and runs on a clock set right again.
    await editLogLevel('debug');
    const next = await plan();
    expect(next.code, next.stderr).toBe(0);
    expect(fullReadLine(next.stderr)).toBeUndefined();
    expect(updated(next.stdout)).toEqual(['project.e2e/variable.LOG_LEVEL']);
    await editCpu(500);
    const after = await plan();
    expect(updated(after.stdout)).toEqual(['project.e2e/environment.dev/application.api', 'project.e2e/variable.LOG_LEVEL']);
    expect(changesOf(after.stdout)).toEqual(changesOf((await fullPlan()).stdout));
  });

  it("a steady 20-minute skew (the API's clock behind this machine's) hides no edit made just after a run", async () => {
    await setUp(apiClock(-20 * 60_000));
    expect((await plan()).code).toBe(0);
    await editLogLevel('debug');
    const warm = await plan();
    expect(warm.code, warm.stderr).toBe(0);
    expect(fullReadLine(warm.stderr)).toBeUndefined();
    expect(updated(warm.stdout)).toEqual(['project.e2e/variable.LOG_LEVEL']);
    await editCpu(500);
    const next = await plan();
    expect(fullReadLine(next.stderr)).toBeUndefined();
    expect(changesOf(next.stdout)).toEqual(changesOf((await fullPlan()).stdout));
  });

  it("a forged cursor, newer than the API's clock or than the log's newest event, is a full read with its reason", async () => {
    await setUp();
    expect((await plan()).code).toBe(0);
    const s = snapshot();
    const tomorrow = new Date(Date.now() + 24 * HOUR).toISOString();
    writeCacheFile(cacheDir(), { ...s, cursor: { timestamp: tomorrow, ids: [] } }, identity());
    await editLogLevel('debug');
    const forged = await plan();
    expect(forged.code, forged.stderr).toBe(0);
    expect(fullReadLine(forged.stderr)).toMatch(new RegExp(`^Full read of the live state: the cache's event cursor \\(${tomorrow.replace(/\./g, '\\.')}\\) is newer than the API's clock \\(Date: [^)]+\\)\\.$`));
    expect(updated(forged.stdout)).toEqual(['project.e2e/variable.LOG_LEVEL']);
    // A cursor just after the log's newest event (and not after the API's clock): not this log's either.
    const s2 = snapshot();
    const justAfter = new Date(Date.parse(s2.cursor!.timestamp) + 1).toISOString();
    writeCacheFile(cacheDir(), { ...s2, cursor: { timestamp: justAfter, ids: [] } }, identity());
    const beyond = await plan();
    expect(fullReadLine(beyond.stderr)).toMatch(/^Full read of the live state: the cache's event cursor \(.+\) is newer than the audit log's newest event \(.+\)\.$/);
    // The full read left a true cursor: the next run refreshes.
    expect(fullReadLine((await plan()).stderr)).toBeUndefined();
  });
});

describe('late and missing events', () => {
  it('an event the log shows late, timestamped before the cursor of a run that passed it, is still read (the overlap window)', async () => {
    await setUp();
    expect((await plan()).code).toBe(0);
    // The CPU edit is written, but its events are not in the log yet...
    const late = await editCpu(500);
    for (const id of late) proxy!.hidden.add(id);
    // ... while a later edit's are: a run reads it, and its cursor passes the late events' timestamps.
    await editDescription('edited in the console');
    const before = await plan('--verify-requests', '0');
    expect(fullReadLine(before.stderr)).toBeUndefined();
    expect(updated(before.stdout)).toEqual(['project.e2e']);
    // The late events show, with their own (earlier) timestamps.
    proxy!.hidden.clear();
    const after = await plan('--verify-requests', '0');
    expect(after.code, after.stderr).toBe(0);
    expect(fullReadLine(after.stderr)).toBeUndefined();
    expect(updated(after.stdout)).toEqual(['project.e2e', 'project.e2e/environment.dev/application.api']);
    expect(changesOf(after.stdout)).toEqual(changesOf((await fullPlan()).stdout));
  });

  it('an edit the log never records is found by the rotation within ceil(lists / N) warm plans, said on stderr, and repaired by a full read', async () => {
    await setUp();
    expect((await plan()).code).toBe(0);
    expect((await plan()).code).toBe(0);
    // The lists a warm run could answer from the cache (the organization and the clusters are always read).
    const lists = Object.keys(snapshot().responses).filter((k) => k !== '/organization' && !/\/cluster(\/|$)/.test(k)).length;
    expect(lists).toBeGreaterThan(3);
    const N = 2;
    for (const id of await editCpu(500)) proxy!.hidden.add(id);
    let found: { run: number; stderr: string; stdout: string } | undefined;
    for (let run = 1; run <= Math.ceil(lists / N) && !found; run++) {
      const r = await plan('--verify-requests', String(N));
      expect(r.code, r.stderr).toBe(0);
      if (fullReadLine(r.stderr)) found = { run, stderr: r.stderr, stdout: r.stdout };
      else expect(updated(r.stdout)).toEqual([]);
    }
    expect(found, `not found within ceil(${lists} / ${N}) warm plans`).toBeDefined();
    expect(fullReadLine(found!.stderr)).toBe('Full read of the live state: the audit log did not explain a change to project.e2e/environment.dev/application.api.');
    expect(updated(found!.stdout)).toEqual(['project.e2e/environment.dev/application.api']);
    expect(changesOf(found!.stdout)).toEqual(changesOf((await fullPlan()).stdout));
  });

  it('--max-cache-age: a last full read older than it (24h by default, by the API\'s clock) is a full read', async () => {
    await setUp();
    expect((await plan()).code).toBe(0);
    const s = snapshot();
    const aged = (hours: number) => writeCacheFile(cacheDir(), { ...s, freshness: { ...s.freshness!, fullReadAt: new Date(Date.now() - hours * HOUR).toISOString() } }, identity());
    aged(2);
    expect(fullReadLine((await plan()).stderr)).toBeUndefined();
    aged(2);
    expect(fullReadLine((await plan('--max-cache-age', '1h')).stderr)).toBe('Full read of the live state: the cache\'s last full read is 2h old, more than --max-cache-age 1h.');
    aged(25);
    expect(fullReadLine((await plan()).stderr)).toBe("Full read of the live state: the cache's last full read is 25h old, more than --max-cache-age 24h.");
    // A refresh keeps the age of the last full read: it does not reset it.
    expect(fullReadLine((await plan()).stderr)).toBeUndefined();
    expect(Date.parse(snapshot().freshness!.fullReadAt)).toBeGreaterThan(Date.now() - HOUR);
  });
});

describe('the events endpoint as the reference allows it to answer (issue 19)', () => {
  it('events without an id, oldest first: the warm plan still refreshes, and plans what a full read plans', async () => {
    await setUp();
    proxy!.rewrite = (body) => ({ ...body, events: body.events.map(({ id: _id, ...rest }) => rest).reverse() });
    expect((await plan()).code).toBe(0);
    await editLogLevel('debug');
    await editCpu(500);
    const warm = await plan('--verify-requests', '0');
    expect(warm.code, warm.stderr).toBe(0);
    expect(fullReadLine(warm.stderr)).toBeUndefined();
    expect(changesOf(warm.stdout)).toEqual(changesOf((await fullPlan()).stdout));
    // Known by their content, the events of the overlap window are not applied twice.
    const again = await plan('--verify-requests', '0');
    expect(fullReadLine(again.stderr)).toBeUndefined();
    expect(JSON.parse(again.stdout).request_count).toBe(3);
  });

  it('an event without a timestamp: a full read that says why, never a crash', async () => {
    await setUp();
    expect((await plan()).code).toBe(0);
    proxy!.rewrite = (body) => ({ ...body, events: [...body.events, { id: 'undated', event_type: 'DELETE', target_type: 'DATABASE' }] });
    const r = await plan();
    expect(r.code, r.stderr).toBe(0);
    expect(fullReadLine(r.stderr)).toBe('Full read of the live state: the audit log holds an event DELETE of DATABASE (id undated) without a readable timestamp.');
    expect(r.stderr).not.toMatch(/internal error|at .*\.ts:\d+/);
  });
});

describe('--verify-requests and --max-cache-age wherever --cache is', () => {
  it('plan, apply, drift, graph and export take them; a bad value is a clear error', async () => {
    await setUp();
    const opts = ['--cache', 'c', '--verify-requests', '3', '--max-cache-age', '12h'];
    for (const argv of [['plan', 'm'], ['apply', 'm', '--auto-approve', ...FAST], ['drift', 'm'], ['graph', 'm'], ['export'], ['plan', 'm']]) {
      const r = await h!.run([...argv, ...opts], { env: viaProxy() });
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
    }
    const bad = await h!.run(['plan', 'm', '--verify-requests', '-1'], { env: viaProxy() });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--verify-requests must be .*0.*got/);
    const badAge = await h!.run(['drift', 'm', '--max-cache-age', 'soon'], { env: viaProxy() });
    expect(badAge.code).toBe(1);
    expect(badAge.stderr).toMatch(/--max-cache-age must be a duration such as 30m, 90s or 1h.*got/);
    expect(readFileSync(cacheFilePath(join(h!.dir, 'c')), 'utf8')).toContain('"freshness"');
  });
});
