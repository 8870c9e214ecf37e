/**
 * A log that misbehaves as a real one may: `--audit-drop RATE` (that fraction of events is never
 * recorded, reproducibly for a given --fault-seed) and `--audit-delay DURATION` (an event is listed
 * only that long after its write, with the write's timestamp). Through `startEmulator` options, as
 * in-process tests use them, and through `driftless serve`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startClient, type Client, type Res } from './helpers.js';

const open: Client[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.em.close();
});

async function client(options: Parameters<typeof startClient>[0]): Promise<Client> {
  const c = await startClient(options);
  open.push(c);
  return c;
}

async function allEvents(c: Client): Promise<any[]> {
  const out: any[] = [];
  let next: string | undefined = `/organization/${c.em.organizationId}/events?pageSize=100`;
  while (next) {
    const r: Res = await c.get(next.slice(next.indexOf('/organization/')));
    expect(r.status).toBe(200);
    out.push(...r.body.events);
    next = r.body.links.next;
  }
  return out;
}

/** Twenty writes, each one event when nothing is lost. */
async function twentyProjects(c: Client): Promise<void> {
  for (let i = 0; i < 20; i++) expect((await c.post(`/organization/${c.em.organizationId}/project`, { name: `p${i}` })).status).toBe(200);
}

describe('--audit-drop', () => {
  it('1: no event is ever recorded, and the log does not say it lost any', async () => {
    const c = await client({ auditDropRate: 1 });
    await twentyProjects(c);
    expect(Object.keys(c.em.state.projects)).toHaveLength(20);
    const r = await c.get(`/organization/${c.em.organizationId}/events`);
    expect(r.body.events).toEqual([]);
    expect(r.body.organization_max_limit_reached).toBe(false);
  });

  it('0.5: about half are lost, the same ones for the same seed, others for another seed', async () => {
    const names = async (seed: number) => {
      const c = await client({ auditDropRate: 0.5, faultSeed: seed });
      await twentyProjects(c);
      return (await allEvents(c)).map((e) => e.target_name).sort();
    };
    const a = await names(7);
    expect(a.length).toBeGreaterThan(3);
    expect(a.length).toBeLessThan(17);
    expect(await names(7)).toEqual(a);
    expect(await names(8)).not.toEqual(a);
  });

  it('0 (the default): every event is recorded', async () => {
    const c = await client({});
    await twentyProjects(c);
    expect(await allEvents(c)).toHaveLength(20);
  });

  it('an impossible rate is refused at start-up, naming it', async () => {
    await expect(startClient({ auditDropRate: 1.5 })).rejects.toThrow('auditDropRate (--audit-drop) must be a number from 0 to 1, got 1.5');
  });
});

describe('--audit-delay', () => {
  it("lists an event only once the delay is over, with its write's timestamp", async () => {
    let now = Date.parse('2026-11-25T10:00:00Z');
    const c = await client({ auditDelayMs: 30_000, clock: { now: () => new Date(now) } });
    const org = c.em.organizationId;
    expect((await c.post(`/organization/${org}/project`, { name: 'late' })).status).toBe(200);
    now += 29_000;
    expect((await c.get(`/organization/${org}/events`)).body.events).toEqual([]);
    expect((await c.get(`/organization/${org}/events?fromTimestamp=2026-11-25T09:59:00Z`)).body.events).toEqual([]);
    expect((await c.get(`/organization/${org}/targets?targetType=PROJECT`)).body.targets).toEqual([]);
    now += 1_000;
    const events = (await c.get(`/organization/${org}/events`)).body.events;
    expect(events).toMatchObject([{ event_type: 'CREATE', target_type: 'PROJECT', target_name: 'late', timestamp: '2026-11-25T10:00:00.000000000Z' }]);
    // Behind a cursor taken after the write: a reader that trusts its cursor misses it.
    expect((await c.get(`/organization/${org}/events?fromTimestamp=2026-11-25T10:00:10Z`)).body.events).toEqual([]);
  });
});

describe('driftless serve --audit-drop / --audit-delay', () => {
  function io(interrupted?: Promise<void>) {
    let out = '';
    let err = '';
    let onLine: ((s: string) => void) | undefined;
    const line = new Promise<string>((r) => (onLine = r));
    const value = {
      stdout: { write: (s: string) => ((out += s), out.includes('\n') && onLine?.(out.split('\n')[0]), true) },
      stderr: { write: (s: string) => ((err += s), true) },
      env: {},
      cwd: process.cwd(),
      interrupted,
    };
    return { io: value as any, err: () => err, line };
  }

  it('refuses values out of range, naming the option and what is allowed', async () => {
    const a = io();
    expect(await main(['serve', '--audit-drop', '2'], a.io)).toBe(1);
    expect(a.err()).toContain('--audit-drop must be a number from 0 to 1, got 2');
    const b = io();
    expect(await main(['serve', '--audit-delay', 'soon'], b.io)).toBe(1);
    expect(b.err()).toContain('--audit-delay must be a duration such as 30m, 90s or 1h, from 0s to 24h, got soon');
  });

  it('a running emulator loses every event with --audit-drop 1, and shows them late with --audit-delay', async () => {
    for (const [flags, expectNow] of [[['--audit-drop', '1'], 0], [['--audit-delay', '1h'], 0], [['--audit-delay', '0s'], 1]] as const) {
      let stop!: () => void;
      const cap = io(new Promise<void>((r) => (stop = r)));
      const exit = main(['serve', ...flags], cap.io);
      const info = JSON.parse(await cap.line);
      const call = (method: string, path: string, body?: unknown) =>
        fetch(info.url + path, { method, headers: { authorization: `Token ${info.tokens.ADMIN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      expect((await call('POST', `/organization/${info.organization_id}/project`, { name: 'shop' })).status).toBe(200);
      expect((await call('GET', `/organization/${info.organization_id}/project`)).status).toBe(200);
      const events = ((await (await call('GET', `/organization/${info.organization_id}/events`)).json()) as any).events;
      expect(events, flags.join(' ')).toHaveLength(expectNow);
      stop();
      expect(await exit).toBe(0);
    }
  });
});
