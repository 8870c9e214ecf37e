/**
 * The client against the real emulator over loopback HTTP: rate-limit pacing with the emulator's
 * own fixed window (sharing one virtual clock, so nothing waits for real), real dropped
 * connections and 5xx from --fault-rate, and real 401/403.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, createApiClient, type ApiClient, type ApiEvent } from '../../src/api/index.js';
import { routes } from '../../src/api/routes.js';

/** The organization's projects, and a create, on the routes the reconciler uses. */
const listProjects = async (c: ApiClient, org: string) => (await c.get<{ results: Array<{ name: string }> }>(routes.orgList(org, 'projects'))).results;
const createProject = (c: ApiClient, org: string, body: { name: string }) => c.post(routes.orgList(org, 'projects'), { body });
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { silentLogger } from '../../src/emulator/context.js';
import { half, virtualTime } from './helpers.js';

let running: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const r of running.reverse()) await r.close();
  running = [];
});

async function emulator(opts: Parameters<typeof startEmulator>[0]): Promise<RunningEmulator> {
  const emu = await startEmulator({ logger: silentLogger, ...opts });
  running.push(emu);
  return emu;
}

describe('against the emulator', () => {
  it('a run needing 3x the rate limit finishes without a single 429', async () => {
    const time = virtualTime();
    const emu = await emulator({ rateLimit: 10, rateWindowS: 60, clock: { now: () => new Date(time.now) } });
    const events: ApiEvent[] = [];
    const client = createApiClient({
      baseUrl: emu.url,
      token: emu.tokens.READ,
      parallelism: 4,
      now: time.clock,
      sleep: time.sleep,
      onEvent: (e) => events.push(e),
    });
    running.push(client);
    const results = await Promise.all(Array.from({ length: 30 }, () => listProjects(client, emu.organizationId)));
    expect(results).toHaveLength(30);
    expect(client.stats()).toMatchObject({ total: 30, rateLimited: 0 });
    expect(events.filter((e) => e.type === 'response' && e.status === 429)).toHaveLength(0);
    expect(events.filter((e) => e.type === 'rate-limit-wait').length).toBeGreaterThanOrEqual(2);
  });

  it('retries reads through injected faults and reports failed creates as ambiguous', async () => {
    const time = virtualTime();
    const emu = await emulator({ faultRate: 0.5, faultSeed: 7 });
    const client = createApiClient({ baseUrl: emu.url, token: emu.tokens.ADMIN, now: time.clock, sleep: time.sleep, random: half, retries: 8 });
    running.push(client);
    for (let i = 0; i < 10; i++) await listProjects(client, emu.organizationId);
    expect(client.stats().retries).toBeGreaterThan(0);

    const kinds: string[] = [];
    const reasons = new Set<string>();
    for (let i = 0; i < 40; i++) {
      try {
        await createProject(client, emu.organizationId, { name: `p${i}` });
        kinds.push('ok');
      } catch (e) {
        expect(e).toBeInstanceOf(ApiError);
        kinds.push((e as ApiError).kind);
        reasons.add(String((e as ApiError).reason));
      }
    }
    // A failed POST is never retried blindly: it is ambiguous, whatever the fault was.
    expect(new Set(kinds.filter((k) => k !== 'ok'))).toEqual(new Set(['ambiguous']));
    expect(reasons).toEqual(new Set(['server', 'network']));
    // Ambiguous indeed: some of them were applied, others not. Each name exists at most once.
    const names = (await listProjects(client, emu.organizationId)).map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    const okNames = kinds.flatMap((k, i) => (k === 'ok' ? [`p${i}`] : []));
    for (const n of okNames) expect(names).toContain(n);

    // Auth is checked before any fault is injected: a wrong token is unauthorized, a read-only
    // token writing is forbidden (never mistaken for not-found).
    const bad = createApiClient({ baseUrl: emu.url, token: 'not-a-token' });
    const reader = createApiClient({ baseUrl: emu.url, token: emu.tokens.READ });
    running.push(bad, reader);
    await expect(listProjects(bad, emu.organizationId)).rejects.toMatchObject({ kind: 'unauthorized', status: 401 });
    await expect(createProject(reader, emu.organizationId, { name: 'x' })).rejects.toMatchObject({ kind: 'forbidden', status: 403 });
  });
});
