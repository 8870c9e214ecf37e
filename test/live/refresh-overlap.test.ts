/**
 * Issue 21: a warm run's requests wait for nothing they need not wait for. The organization is
 * asked before the cache file is read (every path starts with it), so that the file's read and
 * checks overlap its latency; the rotation's reads (src/live/verify.ts) are sent as the reader
 * reaches them, without holding up its walk, so that reads of lists at several levels of the tree
 * (a project's environments, an environment's services, a service's variables) are in flight
 * together instead of one round trip per level. Same requests, same comparisons, same outcomes
 * (test/live/refresh.test.ts, unchanged).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiPort } from '../../src/live/api-port.js';
import type { LiveRecords } from '../../src/live/read.js';
import { readLiveRecordsCached, type LiveSnapshot } from '../../src/live/refresh.js';
import { requestKey } from '../../src/live/touched.js';
import { cacheFilePath, writeCacheFile } from '../../src/live/cache-file.js';
import { readThroughCache } from '../../src/cli/live-cache.js';
import { packageVersion } from '../../src/cli/package-version.js';
import { after, ReadOnlyApi, readTree } from '../support/read-only-api.js';

const ORG = 'org-1';
let clockMs = Date.UTC(2026, 10, 25, 17, 0, 0);
const now = () => new Date(clockMs);
const varKey = (parent: string) => requestKey('/variable', { parent_id: parent, scope: 'APPLICATION' });

/** project p1 > environment e1 > services s1, s2 with a variable each: 7 lists a warm run can verify. */
function world(): ReadOnlyApi {
  // Every answer comes a timer tick later, as over a network.
  const api = new ReadOnlyApi({
    org: ORG,
    clockMs: () => clockMs,
    wait: () => after(2),
    lists: {
      '/organization': { results: [{ id: ORG, name: 'acme', organization_plan: { audit_logs_retention_in_days: 30 } }] },
      [`/organization/${ORG}/project`]: { results: [{ id: 'p1', name: 'shop' }] },
      '/project/p1/environment': { results: [{ id: 'e1', name: 'prod' }] },
      '/environment/e1/services': { results: [{ id: 's1', name: 'api', service_type: 'APPLICATION' }, { id: 's2', name: 'web', service_type: 'APPLICATION' }] },
      '/environment/e1/statuses': { applications: [] },
      [varKey('s1')]: { results: [{ id: 'v1', key: 'A', value: '1', scope: 'APPLICATION' }] },
      [varKey('s2')]: { results: [{ id: 'v2', key: 'B', value: '2', scope: 'APPLICATION' }] },
    },
  });
  clockMs += 1000;
  api.events.push({ id: `ev${clockMs}`, timestamp: new Date(clockMs).toISOString(), event_type: 'UPDATE', target_type: 'APPLICATION', origin: 'CONSOLE' });
  return api;
}

/** A reader in the shape of readLiveRecords: each level waits for the lists above it. */
const read = (port: ApiPort): Promise<LiveRecords> => readTree(port, ORG);

async function warm(api: ReadOnlyApi): Promise<LiveSnapshot> {
  const r = await readLiveRecordsCached(api, read, { previous: { unusable: 'no cache yet' }, now });
  expect(r.reader).toBe('full');
  api.calls.length = 0;
  api.maxListsInFlight = 0;
  return r.snapshot;
}

describe('the organization is asked before the previous snapshot is loaded', () => {
  it('sends GET /organization, then loads the snapshot while the answer is on its way, and refreshes as before', async () => {
    const api = world();
    const snapshot = await warm(api);
    const order: string[] = [];
    api.onGet = (key) => order.push(`GET ${key}`);
    const r = await readLiveRecordsCached(api, read, {
      previous: async () => {
        order.push('load the snapshot');
        return snapshot;
      },
      now,
      verifyRequests: 0,
    });
    expect(r.reader, r.fullReadReason).toBe('refresh');
    expect(order.slice(0, 2)).toEqual(['GET /organization', 'load the snapshot']);
    expect(r.refreshRequests).toBe(2);
  });

  it('with --refresh full the snapshot is not loaded at all, and a full read counts no request as the refresh', async () => {
    const api = world();
    await warm(api);
    let loaded = false;
    const r = await readLiveRecordsCached(api, read, {
      previous: async () => {
        loaded = true;
        return { unusable: 'x' };
      },
      forceFull: true,
      now,
    });
    expect(r.reader).toBe('full');
    expect(loaded).toBe(false);
    expect(r.refreshRequests).toBe(0);
    expect(api.calls.filter((c) => c === '/organization')).toHaveLength(1);
  });
});

describe('readThroughCache asks for the organization before it reads the cache file', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('a cache file replaced the moment the organization is asked is the one the run reads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'driftless-overlap-'));
    dirs.push(dir);
    const api = world();
    const snapshot = await warm(api);
    const settings = { dir, refresh: 'auto' as const, apiUrl: 'http://127.0.0.1:1', keyOf: () => ({ key: 'k'.repeat(32), source: 'env' as const }), fallbackKey: false, verifyRequests: 0 };
    writeCacheFile(dir, snapshot, { apiUrl: settings.apiUrl, driftlessVersion: packageVersion(), keyOf: settings.keyOf });
    // When the request goes out, the file on disk becomes a damaged one: a run that read the file
    // before asking (the order before issue 21) refreshes from the good file; one that asks first
    // reads the damaged file and says so.
    api.onGet = (key) => {
      if (key === '/organization') writeFileSync(cacheFilePath(dir), '{"damaged":');
    };
    const r = await readThroughCache(api, read, settings);
    expect(r.report.reader).toBe('full');
    expect(r.report.reason).toBe(`the cache ${cacheFilePath(dir)} is corrupt or partial (not JSON)`);
  });
});

describe("the rotation's reads do not hold up the reader's walk", () => {
  it('lists of every level of the tree are read live at once, and the run stays a refresh', async () => {
    const api = world();
    const snapshot = await warm(api);
    const r = await readLiveRecordsCached(api, read, { previous: snapshot, now, verifyRequests: 7 });
    expect(r.reader, r.fullReadReason).toBe('refresh');
    // The 6 lists of the cache (projects, environments, services, statuses, two variable lists)
    // are all re-read, and all were in flight together: before, each level waited for the one above.
    const verified = api.calls.filter((c) => c !== '/organization' && !c.startsWith(`/organization/${ORG}/events`));
    expect(verified.sort()).toEqual([`/organization/${ORG}/project`, '/environment/e1/services', '/environment/e1/statuses', '/project/p1/environment', varKey('s1'), varKey('s2')].sort());
    expect(api.maxListsInFlight).toBe(6);
    expect(r.cachedKeys).toEqual([]);
  });

  it('a difference found by a read the walk did not wait for is still a full read that names it, not a refresh', async () => {
    const api = world();
    const snapshot = await warm(api);
    // A change no event recorded, at the top of the tree: the walk below went on from the cache.
    (api.lists['/project/p1/environment'] as { results: Array<{ name: string }> }).results[0]!.name = 'production';
    const r = await readLiveRecordsCached(api, read, { previous: snapshot, now, verifyRequests: 7 });
    expect(r.reader).toBe('full');
    expect(r.fullReadReason).toBe('the audit log did not explain a change to project.shop/environment.production');
    expect(r.records.environments.get('p1')!.map((e) => e.name)).toEqual(['production']);
  });
});
