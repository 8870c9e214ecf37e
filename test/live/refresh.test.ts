/**
 * The refresh reader against an in-memory API: what it re-reads for each kind of event, and every
 * reason it gives way to a full read. (test/live/refresh.property.test.ts checks it against the
 * emulator: the plan from the cache equals the plan from a full read.)
 */
import { describe, expect, it } from 'vitest';
import type { ApiPort, Query } from '../../src/live/api-port.js';
import { toNanos, type AuditEvent } from '../../src/live/audit-log.js';
import { listResults, type LiveRecords } from '../../src/live/read.js';
import { readLiveRecordsCached, type LiveSnapshot } from '../../src/live/refresh.js';
import { requestKey } from '../../src/live/touched.js';
import { HttpError } from '../apply/fake-api.js';
import { ReadOnlyApi, readTree } from '../support/read-only-api.js';

const ORG = 'org-1';

/** A tiny organization: project p1 > environment e1 > services s1, s2 with variables. */
function world() {
  const lists: Record<string, unknown> = {
    '/organization': { results: [{ id: ORG, name: 'acme', organization_plan: { audit_logs_retention_in_days: 30 } }] },
    [`/organization/${ORG}/project`]: { results: [{ id: 'p1', name: 'shop' }] },
    [`/organization/${ORG}/webhook`]: { results: [] },
    '/project/p1/environment': { results: [{ id: 'e1', name: 'prod' }] },
    '/environment/e1/services': { results: [{ id: 's1', name: 'api', service_type: 'APPLICATION' }, { id: 's2', name: 'web', service_type: 'APPLICATION' }] },
    '/environment/e1/statuses': { applications: [] },
    [requestKey('/variable', { parent_id: 's1', scope: 'APPLICATION' })]: { results: [{ id: 'v1', key: 'A', value: '1', scope: 'APPLICATION' }, { id: 'b1', key: 'QOVERY_X', scope: 'BUILT_IN' }] },
    [requestKey('/variable', { parent_id: 's2', scope: 'APPLICATION' })]: { results: [{ id: 'v2', key: 'B', value: '2', scope: 'APPLICATION' }] },
  };
  const api = new ReadOnlyApi({ lists, org: ORG, clockMs: () => clockMs, record: (path, query) => ({ path, ...(query ? { query } : {}) }) });
  const emit = (e: Partial<AuditEvent>) => {
    // Events happen after the reads before them: the clock moves on.
    clockMs += 1000;
    api.events.push({ id: `ev${clockMs}`, timestamp: new Date(clockMs).toISOString(), event_type: 'UPDATE', target_type: 'APPLICATION', origin: 'CONSOLE', ...e });
  };
  return { api, lists, events: api.events, emit };
}

const read = (port: ApiPort): Promise<LiveRecords> => readTree(port, ORG);

/** This machine's clock and the API's, one and the same here. */
let clockMs = Date.UTC(2026, 10, 25, 17, 0, 0);
const now = () => new Date(clockMs);

async function warm(w: ReturnType<typeof world>): Promise<LiveSnapshot> {
  const r = await readLiveRecordsCached(w.api, read, { previous: { unusable: 'no cache yet' }, now });
  expect(r.reader).toBe('full');
  w.api.calls.length = 0;
  return r.snapshot;
}

describe('readLiveRecordsCached', () => {
  it('with no event since the cursor, reads the organization and the log only, and returns what a full read returns', async () => {
    const w = world();
    w.emit({});
    const snapshot = await warm(w);
    // The rotation's re-reads (src/live/verify.ts) are off: this counts what the log costs.
    const r = await readLiveRecordsCached(w.api, read, { previous: snapshot, now, verifyRequests: 0 });
    expect(r.reader).toBe('refresh');
    expect(w.api.calls.map((c) => c.path)).toEqual(['/organization', `/organization/${ORG}/events`]);
    expect(r.refreshRequests).toBe(2);
    expect(r.records).toEqual(await read(w.api));
  });

  it('the full read takes the cursor before it reads, and keeps no BUILT_IN variable', async () => {
    const w = world();
    w.emit({});
    const r = await readLiveRecordsCached(w.api, read, { previous: { unusable: 'no cache yet' }, now });
    expect(w.api.calls.map((c) => c.path).slice(0, 2)).toEqual(['/organization', `/organization/${ORG}/events`]);
    expect(r.snapshot.cursor).toEqual({ timestamp: w.events[0]!.timestamp, ids: [w.events[0]!.id] });
    expect(JSON.stringify(r.snapshot.responses)).not.toContain('QOVERY_X');
    expect(r.fullReadReason).toBe('no cache yet');
  });

  it('re-reads the variable list of the service whose variable changed, and what shows it out of date (its environment\'s services and statuses)', async () => {
    const w = world();
    const snapshot = await warm(w);
    w.lists[requestKey('/variable', { parent_id: 's2', scope: 'APPLICATION' })] = { results: [{ id: 'v2', key: 'B', value: 'changed', scope: 'APPLICATION' }] };
    w.emit({ target_type: 'APPLICATION', target_id: 's2', sub_target_type: 'VARIABLE', project_id: 'p1', environment_id: 'e1' });
    const r = await readLiveRecordsCached(w.api, read, { previous: snapshot, now, verifyRequests: 0 });
    expect(r.reader).toBe('refresh');
    expect(w.api.calls.map((c) => (c.path === '/variable' ? requestKey(c.path, c.query) : c.path))).toEqual([
      '/organization',
      `/organization/${ORG}/events`,
      '/environment/e1/services',
      '/environment/e1/statuses',
      requestKey('/variable', { parent_id: 's2', scope: 'APPLICATION' }),
    ]);
    expect(r.records.variables.get('s2')![0]!.value).toBe('changed');
    expect(r.events).toHaveLength(1);
    // The next run starts after that event.
    w.api.calls.length = 0;
    const again = await readLiveRecordsCached(w.api, read, { previous: r.snapshot, now, verifyRequests: 0 });
    expect(again.refreshRequests).toBe(2);
    expect(again.records).toEqual(r.records);
  });

  it('in a quiet organization, reads the log from when the previous read began (the API\'s Date, less the overlap), not from a cursor older than the retention', async () => {
    const w = world();
    w.emit({ target_type: 'APPLICATION', target_id: 's1', environment_id: 'e1', project_id: 'p1' });
    const snapshot = await warm(w);
    // The newest event is 40 days old; the previous read began an hour ago by the API's clock.
    const quiet = { ...snapshot, cursor: { timestamp: '2026-10-16T16:00:00.000000001Z', ids: ['old'] }, freshness: { ...snapshot.freshness!, floor: '2026-10-16T16:00:00.000000001Z', serverReadAt: '2026-11-25T16:00:00.000Z' } };
    const r = await readLiveRecordsCached(w.api, read, { previous: quiet, now });
    expect(r.reader).toBe('refresh');
    expect(w.api.calls[1]!.query?.fromTimestamp).toBe('2026-11-25T15:55:00.000000000Z');
    // After a full read, from its cursor: it saw every write up to then, logged late or not.
    w.api.calls.length = 0;
    await readLiveRecordsCached(w.api, read, { previous: snapshot, now });
    expect(toNanos(String(w.api.calls[1]!.query?.fromTimestamp))).toBe(toNanos(snapshot.cursor!.timestamp));
    // After a refresh, from its cursor less the overlap window: late events are read again.
    clockMs += 20 * 60_000;
    w.emit({ target_type: 'APPLICATION', target_id: 's1', environment_id: 'e1', project_id: 'p1' });
    const refreshed = await readLiveRecordsCached(w.api, read, { previous: snapshot, now });
    w.api.calls.length = 0;
    await readLiveRecordsCached(w.api, read, { previous: refreshed.snapshot, now });
    expect(toNanos(String(w.api.calls[1]!.query?.fromTimestamp))).toBe(toNanos(refreshed.snapshot.cursor!.timestamp) - 300_000_000_000n);
  });

  it('an environment variable makes every variable list of the environment stale (they inherit it)', async () => {
    const w = world();
    const snapshot = await warm(w);
    w.emit({ target_type: 'ENVIRONMENT', target_id: 'e1', sub_target_type: 'VARIABLE', project_id: 'p1', environment_id: 'e1' });
    await readLiveRecordsCached(w.api, read, { previous: snapshot, now });
    expect(w.api.calls.filter((c) => c.path === '/variable').map((c) => c.query?.parent_id)).toEqual(['s1', 's2']);
  });

  it('a service created out of band: the services list is re-read and the new service read whole', async () => {
    const w = world();
    const snapshot = await warm(w);
    (w.lists['/environment/e1/services'] as { results: unknown[] }).results.push({ id: 's3', name: 'worker', service_type: 'APPLICATION' });
    w.lists[requestKey('/variable', { parent_id: 's3', scope: 'APPLICATION' })] = { results: [] };
    w.emit({ event_type: 'CREATE', target_type: 'APPLICATION', target_id: 's3', project_id: 'p1', environment_id: 'e1' });
    const r = await readLiveRecordsCached(w.api, read, { previous: snapshot, now, verifyRequests: 0 });
    expect(r.reader).toBe('refresh');
    expect(w.api.calls.map((c) => requestKey(c.path, c.query)).slice(2).sort()).toEqual(['/environment/e1/services', '/environment/e1/statuses', requestKey('/variable', { parent_id: 's3', scope: 'APPLICATION' })].sort());
    w.api.calls.length = 0;
    expect(r.records).toEqual(await read(w.api));
  });

  describe('gives way to a full read, and says why', () => {
    const cases: Array<[string, (w: ReturnType<typeof world>, s: LiveSnapshot) => { previous: LiveSnapshot | { unusable: string }; forceFull?: boolean; now?: () => Date; maxCacheAgeMs?: number }, RegExp]> = [
      ['--refresh full', (_w, s) => ({ previous: s, forceFull: true }), /--refresh full/],
      ['no usable cache file', () => ({ previous: { unusable: 'the cache x is corrupt or partial (not JSON)' } }), /corrupt or partial/],
      ['another organization', (_w, s) => ({ previous: { ...s, organizationId: 'org-2' } }), /another organization/],
      [
        'a cache older than the retention (by the API\'s clock)',
        (_w, s) => {
          clockMs += 31 * 86_400_000;
          return { previous: s };
        },
        /older than the audit log's retention \(30 days\)/,
      ],
      [
        'a last full read older than --max-cache-age (24h by default), by the API\'s clock',
        (_w, s) => {
          clockMs += 25 * 3_600_000;
          return { previous: s };
        },
        /the cache's last full read is 25h old, more than --max-cache-age 24h/,
      ],
      [
        '--max-cache-age given',
        (_w, s) => {
          clockMs += 2 * 3_600_000;
          return { previous: s, maxCacheAgeMs: 3_600_000 };
        },
        /the cache's last full read is 2h old, more than --max-cache-age 1h/,
      ],
      [
        'a forged cursor newer than the API\'s clock (Date)',
        (_w, s) => ({ previous: { ...s, cursor: { timestamp: new Date(clockMs + 86_400_000).toISOString(), ids: ['forged'] } } }),
        /the cache's event cursor \(.*\) is newer than the API's clock \(Date: .*\)/,
      ],
      [
        'a floor after the cursor (it would hide every event up to it)',
        (_w, s) => ({ previous: { ...s, freshness: { ...s.freshness!, floor: new Date(clockMs - 500).toISOString() }, cursor: { timestamp: new Date(clockMs - 1000).toISOString(), ids: [] } } }),
        /the cache's floor \(.*\) is after its event cursor \(.*\)/,
      ],
      [
        'a cursor newer than the audit log\'s newest event',
        (_w, s) => {
          clockMs += 60_000;
          return { previous: { ...s, cursor: { timestamp: new Date(clockMs - 30_000).toISOString(), ids: [] } } };
        },
        /the cache's event cursor \(.*\) is newer than the audit log's newest event \(.*\)/,
      ],
      [
        'an event without a timestamp',
        (w, s) => {
          const answer = w.api.logAnswer;
          w.api.logAnswer = (q) => {
            const page = answer(q) as { events: unknown[] };
            return { ...page, events: [...page.events, { id: 'ev-undated', event_type: 'DELETE', target_type: 'DATABASE' }] };
          };
          return { previous: s };
        },
        /the audit log holds an event DELETE of DATABASE \(id ev-undated\) without a readable timestamp/,
      ],
      [
        'a list the rotation re-read differs from the cache: the audit log did not explain it',
        (w, s) => {
          (w.lists['/environment/e1/services'] as { results: Array<{ name: string }> }).results[1]!.name = 'www';
          return { previous: s };
        },
        /^the audit log did not explain a change to project\.shop\/environment\.prod\/application\.www$/,
      ],
      [
        'organization_max_limit_reached',
        (w, s) => {
          w.api.logAnswer = () => ({ events: [], organization_max_limit_reached: true });
          return { previous: s };
        },
        /organization_max_limit_reached/,
      ],
      [
        'an event it does not understand',
        (w, s) => {
          w.emit({ event_type: 'TELEPORT', target_type: 'APPLICATION', target_id: 's1', environment_id: 'e1' });
          return { previous: s };
        },
        /does not understand \(TELEPORT of APPLICATION\)/,
      ],
      [
        'an event on a target it does not know',
        (w, s) => {
          w.emit({ event_type: 'UPDATE', target_type: 'AGENTIC_WORKFLOW', target_id: 'x' });
          return { previous: s };
        },
        /does not understand/,
      ],
      [
        'a manifest that needs a list the cache never held',
        (w, s) => {
          delete s.responses[`/organization/${ORG}/webhook`];
          return { previous: s };
        },
        /the manifest needs lists the cache does not hold/,
      ],
    ];
    for (const [name, setup, reason] of cases) {
      it(name, async () => {
        const w = world();
        const snapshot = await warm(w);
        const readWebhooks = async (port: ApiPort) => {
          const r = await read(port);
          r.lists.webhooks = listResults(await port.get(`/organization/${ORG}/webhook`));
          return r;
        };
        const o = setup(w, structuredClone(snapshot));
        const r = await readLiveRecordsCached(w.api, readWebhooks, { now, ...o });
        expect(r.reader).toBe('full');
        expect(r.fullReadReason).toMatch(reason);
        w.api.calls.length = 0;
        expect(r.records).toEqual(await readWebhooks(w.api));
      });
    }

    for (const status of [403, 404]) {
      it(`an events endpoint answering ${status}`, async () => {
        const w = world();
        const snapshot = await warm(w);
        w.api.logAnswer = () => {
          throw new HttpError(status, 'no');
        };
        const r = await readLiveRecordsCached(w.api, read, { previous: snapshot, now });
        expect(r.reader).toBe('full');
        expect(r.fullReadReason).toBe(`the audit log is not available to this token (the events endpoint answered ${status})`);
        expect(r.snapshot.cursor).toBeNull();
      });
    }
  });

  it('a failure that is not about the log (a 500 of a list) is the run\'s failure, not a silent full read', async () => {
    const w = world();
    const snapshot = await warm(w);
    w.emit({ target_type: 'APPLICATION', target_id: 's1', environment_id: 'e1', project_id: 'p1' });
    delete w.lists['/environment/e1/services'];
    await expect(readLiveRecordsCached(w.api, read, { previous: snapshot, now })).rejects.toMatchObject({ status: 404 });
  });

  describe('rolling verification (--verify-requests N)', () => {
    /** Warm runs until one falls back to a full read; how many it took. */
    async function runsUntilFull(w: ReturnType<typeof world>, snapshot: LiveSnapshot, n: number, limit: number): Promise<{ runs: number; reason?: string }> {
      let previous = snapshot;
      for (let run = 1; run <= limit; run++) {
        const r = await readLiveRecordsCached(w.api, read, { previous, now, verifyRequests: n });
        if (r.reader === 'full') return { runs: run, ...(r.fullReadReason ? { reason: r.fullReadReason } : {}) };
        previous = r.snapshot;
      }
      return { runs: Infinity };
    }

    it('re-reads N lists per warm run, in rotation, and finds a change the log never recorded within ceil(lists / N) runs', async () => {
      // 7 cached lists (projects, webhooks, environments, services, statuses, 2 variable lists), N = 2: 4 runs.
      for (const changedKey of [requestKey('/variable', { parent_id: 's2', scope: 'APPLICATION' }), `/organization/${ORG}/project`, '/project/p1/environment']) {
        const w = world();
        const snapshot = await warm(w);
        const readHook = async (port: ApiPort) => {
          const r = await read(port);
          r.lists.webhooks = listResults(await port.get(`/organization/${ORG}/webhook`));
          return r;
        };
        const first = await readLiveRecordsCached(w.api, readHook, { previous: { unusable: 'x' }, now });
        w.api.calls.length = 0;
        const body = w.lists[changedKey] as { results: Array<Record<string, unknown>> };
        body.results[0] = { ...body.results[0]!, name: 'renamed', key: 'RENAMED' };
        let previous = first.snapshot;
        let found = Infinity;
        for (let run = 1; run <= 4; run++) {
          const before = w.api.calls.length;
          const r = await readLiveRecordsCached(w.api, readHook, { previous, now, verifyRequests: 2 });
          if (r.reader === 'full') {
            found = run;
            expect(r.fullReadReason).toMatch(/^the audit log did not explain a change to /);
            break;
          }
          // The organization, the log, and the two lists of the rotation.
          expect(w.api.calls.length - before).toBe(4);
          previous = r.snapshot;
        }
        expect(found, changedKey).toBeLessThanOrEqual(Math.ceil(7 / 2));
        void snapshot;
      }
    });

    it('names what changed as plan does: a variable by its key, under its service', async () => {
      const w = world();
      const snapshot = await warm(w);
      w.lists[requestKey('/variable', { parent_id: 's2', scope: 'APPLICATION' })] = { results: [{ id: 'v2', key: 'B', value: 'changed', scope: 'APPLICATION' }] };
      const r = await runsUntilFull(w, snapshot, 3, 3);
      expect(r.reason).toBe('the audit log did not explain a change to project.shop/environment.prod/application.web/variable.B');
    });

    it('0 turns it off: an unlogged change then stays unseen (the cost of trusting the log alone)', async () => {
      const w = world();
      const snapshot = await warm(w);
      (w.lists['/environment/e1/services'] as { results: Array<{ name: string }> }).results[1]!.name = 'www';
      expect((await runsUntilFull(w, snapshot, 0, 5)).runs).toBe(Infinity);
    });

    it('the rotation also checks lists only another manifest sharing the cache uses, and forgets one whose object is gone', async () => {
      const w = world();
      await warm(w);
      // Another manifest's run (it also needs the webhooks) leaves them in the cache.
      const withHooks = async (port: ApiPort) => {
        const r = await read(port);
        r.lists.webhooks = listResults(await port.get(`/organization/${ORG}/webhook`));
        return r;
      };
      const other = await readLiveRecordsCached(w.api, withHooks, { previous: { unusable: 'x' }, now });
      // A webhook added with no event: only the rotation can find it, and this run never asks for webhooks.
      (w.lists[`/organization/${ORG}/webhook`] as { results: unknown[] }).results.push({ id: 'h1', target_url: 'https://hooks.example.com/x' });
      const found = await runsUntilFull(w, other.snapshot, 2, 4);
      expect(found.runs).toBeLessThanOrEqual(Math.ceil(7 / 2));
      expect(found.reason).toMatch(/^the audit log did not explain a change to /);

      // A list of an object that is gone (404), which this run does not need: not a change the
      // log failed to explain; its lists are dropped from the cache.
      const w2 = world();
      const second = await readLiveRecordsCached(w2.api, withHooks, { previous: { unusable: 'x' }, now });
      const ghost = requestKey('/variable', { parent_id: 'gone', scope: 'APPLICATION' });
      const previous: LiveSnapshot = { ...second.snapshot, responses: { ...second.snapshot.responses, [ghost]: { results: [] } } };
      let snap = previous;
      for (let run = 0; run < 4; run++) {
        const r = await readLiveRecordsCached(w2.api, withHooks, { previous: snap, now, verifyRequests: 2 });
        expect(r.reader, r.fullReadReason).toBe('refresh');
        snap = r.snapshot;
      }
      expect(ghost in snap.responses).toBe(false);
    });

    it('a list of an object the log never said was deleted answers 404: a full read that names it, not a failed run', async () => {
      const w = world();
      const snapshot = await warm(w);
      // The environment is deleted with no event of its own (lost); an event on one of its
      // services (logged) makes its lists stale, so the refresh asks for them.
      w.lists['/project/p1/environment'] = { results: [] };
      for (const k of Object.keys(w.lists)) if (k.startsWith('/environment/e1/') || k.startsWith('/variable?')) delete w.lists[k];
      w.emit({ target_type: 'APPLICATION', target_id: 's1', project_id: 'p1', environment_id: 'e1' });
      const r = await readLiveRecordsCached(w.api, read, { previous: snapshot, now, verifyRequests: 0 });
      expect(r.reader).toBe('full');
      expect(r.fullReadReason).toBe('the audit log did not explain a change to project.shop/environment.prod');
      expect(r.records.environments.get('p1')).toEqual([]);
    });

    it('lists re-read because of an event are not counted in N; a list verified equal is used as read (one request, not two)', async () => {
      const w = world();
      const snapshot = await warm(w);
      w.emit({ target_type: 'APPLICATION', target_id: 's2', sub_target_type: 'VARIABLE', project_id: 'p1', environment_id: 'e1' });
      const r = await readLiveRecordsCached(w.api, read, { previous: snapshot, now, verifyRequests: 2 });
      expect(r.reader).toBe('refresh');
      const keys = w.api.calls.map((c) => requestKey(c.path, c.query));
      expect(new Set(keys).size).toBe(keys.length);
      // Organization, log, the 3 stale lists, and 2 of the rotation.
      expect(keys).toHaveLength(7);
    });
  });

  describe('the overlap window: late events', () => {
    it('an event that appears after the run that passed its timestamp is still applied, once', async () => {
      const w = world();
      w.emit({});
      const snapshot = await warm(w);
      // A write logged late: its timestamp is before the newest event the next run sees.
      w.lists[requestKey('/variable', { parent_id: 's1', scope: 'APPLICATION' })] = { results: [{ id: 'v1', key: 'A', value: 'late', scope: 'APPLICATION' }] };
      clockMs += 300_000;
      w.emit({ target_type: 'APPLICATION', target_id: 's2', environment_id: 'e1', project_id: 'p1' });
      const r1 = await readLiveRecordsCached(w.api, read, { previous: snapshot, now, verifyRequests: 0 });
      expect(r1.records.variables.get('s1')![0]!.value).toBe('1');
      // Now the late event shows, timestamped before r1's cursor.
      const lateAt = toNanos(r1.snapshot.cursor!.timestamp) - 60_000_000_000n;
      const iso = new Date(Number(lateAt / 1_000_000n)).toISOString();
      w.events.push({ id: 'late', timestamp: iso, event_type: 'UPDATE', target_type: 'APPLICATION', target_id: 's1', sub_target_type: 'VARIABLE', environment_id: 'e1', project_id: 'p1', origin: 'CONSOLE' });
      w.events.sort((a, b) => (toNanos(a.timestamp) < toNanos(b.timestamp) ? -1 : 1));
      const r2 = await readLiveRecordsCached(w.api, read, { previous: r1.snapshot, now, verifyRequests: 0 });
      expect(r2.reader).toBe('refresh');
      expect(r2.events.map((e) => e.id)).toEqual(['late']);
      expect(r2.records.variables.get('s1')![0]!.value).toBe('late');
      // Read again in the next window, it is not applied twice.
      const r3 = await readLiveRecordsCached(w.api, read, { previous: r2.snapshot, now, verifyRequests: 0 });
      expect(r3.events).toEqual([]);
    });
  });
});

describe('readLiveRecordsCached: the ages and limits of a cache', () => {
  const fullReadAfter = async (ms: number, maxCacheAgeMs: number, org?: Record<string, unknown>) => {
    const w = world();
    if (org) (w.lists['/organization'] as { results: Array<Record<string, unknown>> }).results[0] = { id: ORG, name: 'acme', ...org };
    const snapshot = await warm(w);
    clockMs += ms;
    return readLiveRecordsCached(w.api, read, { previous: snapshot, now, maxCacheAgeMs, verifyRequests: 0 });
  };

  it('says the age of the last full read in minutes, hours or days, as the limit too', async () => {
    expect((await fullReadAfter(50 * 60_000, 30 * 60_000)).fullReadReason).toBe("the cache's last full read is 50m old, more than --max-cache-age 30m");
    expect((await fullReadAfter(4 * 86_400_000, 3 * 86_400_000)).fullReadReason).toBe("the cache's last full read is 4 days old, more than --max-cache-age 3 days");
    expect((await fullReadAfter(71 * 3_600_000, 70 * 3_600_000)).fullReadReason).toBe("the cache's last full read is 71h old, more than --max-cache-age 70h");
  });

  it('under a minute in seconds: `--max-cache-age 0s` does not read "0m old, more than 0m"', async () => {
    expect((await fullReadAfter(12_000, 0)).fullReadReason).toBe("the cache's last full read is 12s old, more than --max-cache-age 0s");
    expect((await fullReadAfter(45_000, 30_000)).fullReadReason).toBe("the cache's last full read is 45s old, more than --max-cache-age 30s");
  });

  it('uses a cache exactly as old as --max-cache-age, not one a second older', async () => {
    const at = await fullReadAfter(3_600_000, 3_600_000);
    expect(at.reader).toBe('refresh');
    expect(at.fullReadReason).toBeUndefined();
    expect((await fullReadAfter(3_601_000, 3_600_000)).reader).toBe('full');
  });

  it("gives way to a full read past the audit log's retention, exactly; no retention without a usable plan figure", async () => {
    const day = 86_400_000;
    expect((await fullReadAfter(30 * day, 365 * day)).reader).toBe('refresh');
    expect((await fullReadAfter(30 * day + 1000, 365 * day)).fullReadReason).toBe("the cache is older than the audit log's retention (30 days)");
    for (const plan of [{}, { organization_plan: { audit_logs_retention_in_days: 0 } }, { organization_plan: { audit_logs_retention_in_days: -3 } }, { organization_plan: { audit_logs_retention_in_days: '30' } }]) {
      const r = await fullReadAfter(40 * day, 365 * day, plan);
      expect(r.fullReadReason ?? '', JSON.stringify(plan)).not.toMatch(/retention/);
    }
  });

  it('counts the requests the refresh itself made (not the port\'s earlier ones), before a full read it gave way to or on its own', async () => {
    const w = world();
    w.emit({});
    const snapshot = await warm(w);
    await w.api.get('/organization');
    clockMs += 2 * 3_600_000;
    const full = await readLiveRecordsCached(w.api, read, { previous: snapshot, now, maxCacheAgeMs: 3_600_000, verifyRequests: 0 });
    expect(full.reader).toBe('full');
    // The organization, to learn the cache's age by the API's clock.
    expect(full.refreshRequests).toBe(1);
    expect(full.events).toEqual([]);
    expect(full.cachedKeys).toEqual([]);
    const refreshed = await readLiveRecordsCached(w.api, read, { previous: full.snapshot, now, verifyRequests: 0 });
    expect(refreshed.reader).toBe('refresh');
    expect(refreshed.refreshRequests).toBe(2);
    expect(refreshed.cachedKeys.length).toBeGreaterThan(0);
  });

  it('reads by this machine\'s clock when no clock is given', async () => {
    const w = world();
    const before = Date.now();
    const r = await readLiveRecordsCached(w.api, read, { previous: { unusable: 'no cache yet' } });
    expect(r.reader).toBe('full');
    expect(Date.parse(r.snapshot.readAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(r.snapshot.readAt)).toBeLessThanOrEqual(Date.now());
  });
});

describe('readLiveRecordsCached: what a deletion makes the cache forget', () => {
  it("the lists of a deleted service are dropped from the snapshot, the others' kept", async () => {
    const w = world();
    w.emit({});
    const snapshot = await warm(w);
    const s2Vars = requestKey('/variable', { parent_id: 's2', scope: 'APPLICATION' });
    expect(s2Vars in snapshot.responses).toBe(true);
    (w.lists['/environment/e1/services'] as { results: unknown[] }).results.splice(1, 1);
    delete w.lists[s2Vars];
    w.emit({ event_type: 'DELETE', target_type: 'APPLICATION', target_id: 's2', project_id: 'p1', environment_id: 'e1' });
    const r = await readLiveRecordsCached(w.api, read, { previous: snapshot, now, verifyRequests: 0 });
    expect(r.reader).toBe('refresh');
    expect(s2Vars in r.snapshot.responses).toBe(false);
    expect(requestKey('/variable', { parent_id: 's1', scope: 'APPLICATION' }) in r.snapshot.responses).toBe(true);
    expect(r.events.map((e) => e.event_type)).toEqual(['DELETE']);
  });
});

describe('readLiveRecordsCached: lists the cache never held', () => {
  const lacking = async (drop: string, neededBy?: string) => {
    const w = world();
    w.emit({});
    const snapshot = await warm(w);
    delete snapshot.responses[drop];
    return readLiveRecordsCached(w.api, read, { previous: snapshot, now, verifyRequests: 0, ...(neededBy ? { neededBy } : {}) });
  };

  it('of an object the cache knows (a project, an environment, a service) are named on the full-read line', async () => {
    expect((await lacking('/project/p1/environment')).fullReadReason).toBe('the manifest needs lists the cache does not hold (1: the environments of project "shop")');
    expect((await lacking('/environment/e1/statuses')).fullReadReason).toBe('the manifest needs lists the cache does not hold (1: the service statuses of environment "prod")');
    const vars = requestKey('/variable', { parent_id: 's1', scope: 'APPLICATION' });
    const r = await lacking(vars, 'the manifest infra/prod');
    expect(r.reader).toBe('full');
    expect(r.fullReadReason).toBe('the manifest infra/prod needs lists the cache does not hold (1: the variables of service "api")');
    // What the cache held is kept for the manifests that need it, the lacking list read by the full read.
    expect(vars in r.snapshot.responses).toBe(true);
  });
});

describe('readLiveRecordsCached: clocks, failures and what the snapshot carries', () => {
  const varKey = (parent: string) => requestKey('/variable', { parent_id: parent, scope: 'APPLICATION' });
  const withHooks = async (port: ApiPort) => {
    const r = await read(port);
    r.lists.webhooks = listResults(await port.get(`/organization/${ORG}/webhook`));
    return r;
  };

  it("an API that sends no Date: ages and the log's bound by this machine's clock, and an empty log read whole", async () => {
    const w = world();
    // No Date header: the port has no serverDate at all.
    const api = Object.assign(Object.create(Object.getPrototypeOf(w.api)), w.api, { serverDate: undefined }) as typeof w.api;
    const first = await readLiveRecordsCached(api, read, { previous: { unusable: 'no cache yet' }, now });
    expect(first.snapshot.cursor).toBeNull();
    expect(first.snapshot.freshness).toEqual({ seen: [], fullReadAt: new Date(clockMs).toISOString() });
    w.emit({ target_type: 'APPLICATION', target_id: 's2', sub_target_type: 'VARIABLE', project_id: 'p1', environment_id: 'e1' });
    w.lists[varKey('s2')] = { results: [{ id: 'v2', key: 'B', value: 'new', scope: 'APPLICATION' }] };
    api.calls.length = 0;
    const r = await readLiveRecordsCached(api, read, { previous: first.snapshot, now, verifyRequests: 0 });
    expect(r.reader, r.fullReadReason).toBe('refresh');
    // No cursor and no server time to start from: the whole log is read, without a bound.
    expect(api.calls[1]!.query).toEqual({ pageSize: 100 });
    expect(r.records.variables.get('s2')![0]!.value).toBe('new');
    // 31 days later by this machine's clock: past the retention, counted from the last read's own time.
    clockMs += 31 * 86_400_000;
    const late = await readLiveRecordsCached(api, read, { previous: r.snapshot, now, maxCacheAgeMs: 365 * 86_400_000 });
    expect(late.fullReadReason).toBe("the cache is older than the audit log's retention (30 days)");
  });

  it("this machine's clock days off the API's: the cache's age is counted by the API's clock only", async () => {
    const w = world();
    w.emit({});
    const day = 86_400_000;
    // The first read on a machine 40 days behind, the next on one 40 days ahead.
    const first = await readLiveRecordsCached(w.api, read, { previous: { unusable: 'no cache yet' }, now: () => new Date(clockMs - 40 * day) });
    expect(first.snapshot.readAt).toBe(new Date(clockMs - 40 * day).toISOString());
    clockMs += 3_600_000;
    const r = await readLiveRecordsCached(w.api, read, { previous: first.snapshot, now: () => new Date(clockMs + 40 * day), verifyRequests: 0, maxCacheAgeMs: 365 * day });
    expect(r.reader, r.fullReadReason).toBe('refresh');
  });

  it('the snapshot a refresh leaves keeps the full read\'s floor and time, and the API\'s clock of this read', async () => {
    const w = world();
    w.emit({});
    const snapshot = await warm(w);
    expect(snapshot.freshness?.floor).toBe(w.events[0]!.timestamp);
    clockMs += 5000;
    const r = await readLiveRecordsCached(w.api, read, { previous: snapshot, now, verifyRequests: 0 });
    expect(r.reader).toBe('refresh');
    expect(r.snapshot.freshness).toEqual({ floor: w.events[0]!.timestamp, seen: [], serverReadAt: new Date(Math.floor(clockMs / 1000) * 1000).toISOString(), fullReadAt: snapshot.freshness!.fullReadAt });
  });

  it('a narrowed overlap window (overlapMs) is the one the log is read from', async () => {
    const w = world();
    w.emit({});
    const snapshot = await warm(w);
    clockMs += 60_000;
    w.emit({ target_type: 'APPLICATION', target_id: 's1', project_id: 'p1', environment_id: 'e1' });
    const r1 = await readLiveRecordsCached(w.api, read, { previous: snapshot, now, verifyRequests: 0, overlapMs: 1000 });
    w.api.calls.length = 0;
    await readLiveRecordsCached(w.api, read, { previous: r1.snapshot, now, verifyRequests: 0, overlapMs: 1000 });
    // One second before the cursor (the default window, 5 minutes, would reach back to the full read's floor).
    const cursorMs = Date.parse(r1.snapshot.cursor!.timestamp);
    expect(w.api.calls[1]!.query?.fromTimestamp).toBe(`${new Date(cursorMs - 1000).toISOString().slice(0, -1)}000000Z`);
  });

  it('an events endpoint answering what it cannot read: a full read that says so; a 500 of it fails the run', async () => {
    const w = world();
    const snapshot = await warm(w);
    w.api.logAnswer = () => ({ items: [] });
    const r = await readLiveRecordsCached(w.api, read, { previous: snapshot, now });
    expect(r.reader).toBe('full');
    expect(r.fullReadReason).toBe('the audit log could not be read (the events endpoint answered without an events list)');
    w.api.logAnswer = () => {
      throw new HttpError(500, 'boom');
    };
    await expect(readLiveRecordsCached(w.api, read, { previous: snapshot, now })).rejects.toMatchObject({ status: 500 });
    // A full read fails on it too, rather than keep a cache without a cursor.
    await expect(readLiveRecordsCached(w.api, read, { previous: { unusable: 'no cache yet' }, now })).rejects.toMatchObject({ status: 500 });
  });

  it('an events endpoint failing once (a 500) fails the run, rather than a full read that would hide it', async () => {
    const w = world();
    const snapshot = await warm(w);
    const answer = w.api.logAnswer;
    let calls = 0;
    w.api.logAnswer = (q) => {
      if (calls++ === 0) throw new HttpError(500, 'boom');
      return answer(q);
    };
    await expect(readLiveRecordsCached(w.api, read, { previous: snapshot, now })).rejects.toMatchObject({ status: 500 });
  });

  it('a full read whose list answers 404 fails with the API\'s error, not an unexplained change', async () => {
    const w = world();
    delete w.lists['/environment/e1/services'];
    await expect(readLiveRecordsCached(w.api, read, { previous: { unusable: 'no cache yet' }, now })).rejects.toMatchObject({ status: 404 });
    // And it asks for the organization once.
    expect(w.api.calls.filter((c) => c.path === '/organization')).toHaveLength(1);
  });

  for (const which of ['re-read because of an event', 'of the rotation'] as const) {
    it(`a server error of a list ${which} fails the run, not a silent full read`, async () => {
      const w = world();
      const snapshot = await warm(w);
      const key = '/environment/e1/services';
      if (which === 're-read because of an event') w.emit({ event_type: 'CREATE', target_type: 'APPLICATION', target_id: 's3', project_id: 'p1', environment_id: 'e1' });
      // Once only: a full read after it would succeed and hide the failure.
      const get = w.api.get.bind(w.api);
      let failed = false;
      w.api.get = async <T,>(path: string, query?: Query): Promise<T> => {
        if (path === key && !failed) {
          failed = true;
          w.api.calls.push({ path });
          throw new HttpError(500, 'boom');
        }
        return get<T>(path, query);
      };
      await expect(readLiveRecordsCached(w.api, read, { previous: snapshot, now, verifyRequests: which === 'of the rotation' ? 7 : 0 })).rejects.toMatchObject({ status: 500 });
    });
  }

  it('a reader that trips on the empty answers standing in for a lacking list: the full read runs all the same', async () => {
    const w = world();
    w.emit({});
    const snapshot = await warm(w);
    delete snapshot.responses['/project/p1/environment'];
    const strict = async (port: ApiPort) => {
      const r = await read(port);
      if (r.environments.get('p1')!.length === 0) throw new Error('a project without environments');
      return r;
    };
    const r = await readLiveRecordsCached(w.api, strict, { previous: snapshot, now, verifyRequests: 0 });
    expect(r.reader).toBe('full');
    expect(r.fullReadReason).toMatch(/needs lists the cache does not hold \(1: the environments of project "shop"\)/);
    expect(r.records.environments.get('p1')).toHaveLength(1);
  });

  it('a refresh giving way for a lacking list spends no more request on it, and the full read keeps its cursor and the lists of other manifests', async () => {
    const w = world();
    w.emit({});
    await warm(w);
    const other = await readLiveRecordsCached(w.api, withHooks, { previous: { unusable: 'x' }, now });
    delete other.snapshot.responses['/project/p1/environment'];
    w.api.calls.length = 0;
    const r = await readLiveRecordsCached(w.api, read, { previous: other.snapshot, now, verifyRequests: 7 });
    expect(r.reader).toBe('full');
    // The organization, the log, and the projects (of the rotation, read before the lacking list).
    expect(r.refreshRequests).toBe(3);
    // The log is not asked again for a cursor: the one the refresh reached stands.
    expect(w.api.calls.filter((c) => c.path === `/organization/${ORG}/events`)).toHaveLength(1);
    expect(r.snapshot.cursor).toEqual({ timestamp: w.events[0]!.timestamp, ids: [w.events[0]!.id] });
    // The webhooks only the other manifest reads stay in the cache.
    expect(`/organization/${ORG}/webhook` in r.snapshot.responses).toBe(true);
  });

  it('a list the cache lacks of an object an event touched is read, and the run stays a refresh', async () => {
    const w = world();
    w.emit({});
    const snapshot = await warm(w);
    delete snapshot.responses['/environment/e1/statuses'];
    w.emit({ event_type: 'CREATE', target_type: 'APPLICATION', target_id: 's3', project_id: 'p1', environment_id: 'e1' });
    const r = await readLiveRecordsCached(w.api, read, { previous: snapshot, now, verifyRequests: 0 });
    expect(r.reader, r.fullReadReason).toBe('refresh');
    expect('/environment/e1/statuses' in r.snapshot.responses).toBe(true);
  });

  it('a list kept stale for another manifest is read live when this run needs it', async () => {
    const w = world();
    w.emit({});
    const snapshot = await warm(w);
    (w.lists['/environment/e1/services'] as { results: Array<{ name: string }> }).results[1]!.name = 'www';
    const r = await readLiveRecordsCached(w.api, read, { previous: { ...snapshot, responses: { ...snapshot.responses, '/environment/e1/services': null } }, now, verifyRequests: 0 });
    expect(r.reader).toBe('refresh');
    expect(r.records.services.get('e1')!.map((s) => s.name)).toEqual(['api', 'www']);
    expect(r.cachedKeys).not.toContain('/environment/e1/services');
  });

  it('an organization without projects: a list its cache lacks is still a full read that names it', async () => {
    const w = world();
    w.lists[`/organization/${ORG}/project`] = { results: [] };
    w.emit({});
    const first = await readLiveRecordsCached(w.api, read, { previous: { unusable: 'x' }, now });
    const r = await readLiveRecordsCached(w.api, withHooks, { previous: first.snapshot, now, verifyRequests: 0 });
    expect(r.reader).toBe('full');
    expect(r.fullReadReason).toMatch(/needs lists the cache does not hold/);
  });

  it('a list of another kind the cache never held is read, not a reason for a full read', async () => {
    const w = world();
    w.emit({});
    const snapshot = await warm(w);
    w.lists['/application/s1'] = { id: 's1', name: 'api' };
    const detail = async (port: ApiPort) => {
      const r = await read(port);
      await port.get('/application/s1');
      return r;
    };
    const r = await readLiveRecordsCached(w.api, detail, { previous: snapshot, now, verifyRequests: 0 });
    expect(r.reader, r.fullReadReason).toBe('refresh');
    expect(w.api.calls.map((c) => c.path)).toContain('/application/s1');
  });

  it('the live read never writes: a reader that tries is refused, and nothing reaches the API', async () => {
    const w = world();
    w.emit({});
    const snapshot = await warm(w);
    for (const write of [(p: ApiPort) => p.post('/organization/x/project', {}), (p: ApiPort) => p.put('/project/p1', {}), (p: ApiPort) => p.delete('/project/p1')]) {
      const writer = async (port: ApiPort) => {
        await write(port);
        return read(port);
      };
      await expect(readLiveRecordsCached(w.api, writer, { previous: snapshot, now, verifyRequests: 0 })).rejects.toThrow('the live read does not write');
      await expect(readLiveRecordsCached(w.api, writer, { previous: { unusable: 'x' }, now })).rejects.toThrow('the live read does not write');
    }
  });

  it('a variable list answered as a bare array is kept without its BUILT_IN variables too', async () => {
    const w = world();
    w.lists[varKey('s1')] = [{ id: 'v1', key: 'A', value: '1', scope: 'APPLICATION' }, { id: 'b1', key: 'QOVERY_X', scope: 'BUILT_IN' }];
    const r = await readLiveRecordsCached(w.api, read, { previous: { unusable: 'x' }, now });
    expect(r.snapshot.responses[varKey('s1')]).toEqual([{ id: 'v1', key: 'A', value: '1', scope: 'APPLICATION' }]);
  });

  it('the rotation goes on where the previous run stopped: N lists a run, none twice before all were read', async () => {
    const w = world();
    w.emit({});
    let previous = (await readLiveRecordsCached(w.api, withHooks, { previous: { unusable: 'x' }, now })).snapshot;
    const reread: string[][] = [];
    for (let run = 0; run < 3; run++) {
      w.api.calls.length = 0;
      const r = await readLiveRecordsCached(w.api, withHooks, { previous, now, verifyRequests: 3 });
      expect(r.reader).toBe('refresh');
      reread.push(w.api.calls.slice(2).map((c) => requestKey(c.path, c.query)));
      previous = r.snapshot;
    }
    expect(reread.map((k) => k.length)).toEqual([3, 3, 3]);
    // 7 cached lists: the first two runs read 6 different ones, the third the last and starts over.
    expect(new Set([...reread[0]!, ...reread[1]!]).size).toBe(6);
    expect(new Set(reread.flat()).size).toBe(7);
  });

  it('the rotation compares a variable list only another manifest reads, asked with its query', async () => {
    const w = world();
    w.emit({});
    await warm(w);
    w.lists[varKey('s2')] = { results: [{ id: 'v2', key: 'B', value: 'changed', scope: 'APPLICATION' }] };
    const noVariables = async (port: ApiPort) => {
      const r = await read({ ...port, get: (path: string, query?: Query) => (path === '/variable' ? Promise.resolve({ results: [] }) : port.get(path, query)) } as ApiPort);
      return r;
    };
    const previous = (await readLiveRecordsCached(w.api, read, { previous: { unusable: 'x' }, now })).snapshot;
    // Before the change the first warm run found nothing; the value was changed with no event.
    previous.responses[varKey('s2')] = { results: [{ id: 'v2', key: 'B', value: '2', scope: 'APPLICATION' }] };
    const r = await readLiveRecordsCached(w.api, noVariables, { previous, now, verifyRequests: 7 });
    expect(r.fullReadReason).toBe('the audit log did not explain a change to project.shop/environment.prod/application.web/variable.B');
  });

  it('the lists of an environment or a project gone (404) that this run does not need are forgotten by the rotation', async () => {
    const w = world();
    w.emit({});
    const snapshot = await warm(w);
    const ghosts = ['/environment/gone-env/statuses', '/project/gone-project/environment'];
    let previous: LiveSnapshot = { ...snapshot, responses: { ...snapshot.responses, [ghosts[0]!]: { applications: [] }, [ghosts[1]!]: { results: [] } } };
    for (let run = 0; run < 3; run++) {
      const r = await readLiveRecordsCached(w.api, read, { previous, now, verifyRequests: 4 });
      expect(r.reader, r.fullReadReason).toBe('refresh');
      previous = r.snapshot;
    }
    for (const g of ghosts) expect(g in previous.responses, g).toBe(false);
  });
});
