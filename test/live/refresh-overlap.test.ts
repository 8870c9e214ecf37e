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
import type { ApiPort, Query } from '../../src/live/api-port.js';
import { toNanos, type AuditEvent } from '../../src/live/audit-log.js';
import { listResults, type LiveRecords } from '../../src/live/read.js';
import { readLiveRecordsCached, type LiveSnapshot } from '../../src/live/refresh.js';
import { requestKey } from '../../src/live/touched.js';
import { cacheFilePath, writeCacheFile } from '../../src/live/cache-file.js';
import { readThroughCache } from '../../src/cli/live-cache.js';
import { packageVersion } from '../../src/cli/package-version.js';
import { HttpError } from '../apply/fake-api.js';

const ORG = 'org-1';
let clockMs = Date.UTC(2026, 10, 25, 17, 0, 0);
const now = () => new Date(clockMs);
const varKey = (parent: string) => requestKey('/variable', { parent_id: parent, scope: 'APPLICATION' });

/** An API whose every answer comes a timer tick later (as over a network), counting the GETs in flight. */
class SlowApi implements ApiPort {
  readonly calls: string[] = [];
  inFlight = 0;
  /** The most GETs in flight at once, besides the organization and the log. */
  maxListsInFlight = 0;
  private listsInFlight = 0;
  onGet?: (key: string) => void;
  readonly events: AuditEvent[] = [];
  constructor(readonly lists: Record<string, unknown>) {}
  get requestCount(): number {
    return this.calls.length;
  }
  serverDate(): Date {
    return new Date(Math.floor(clockMs / 1000) * 1000);
  }
  async get<T>(path: string, query?: Query): Promise<T> {
    const key = requestKey(path, query);
    this.calls.push(key);
    this.onGet?.(key);
    const list = path !== '/organization' && path !== `/organization/${ORG}/events`;
    if (list) this.maxListsInFlight = Math.max(this.maxListsInFlight, ++this.listsInFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, 2));
      if (path === `/organization/${ORG}/events`) {
        const from = query?.fromTimestamp !== undefined ? toNanos(String(query.fromTimestamp)) : undefined;
        const newest = [...this.events].reverse().filter((e) => from === undefined || BigInt(Date.parse(e.timestamp)) * 1_000_000n >= from);
        return { events: query?.pageSize === 1 ? newest.slice(0, 1) : newest, organization_max_limit_reached: false, links: {} } as T;
      }
      if (!(key in this.lists)) throw new HttpError(404, `no ${key}`);
      return structuredClone(this.lists[key]) as T;
    } finally {
      if (list) this.listsInFlight--;
    }
  }
  post<T>(): Promise<T> {
    return Promise.reject(new Error('read only'));
  }
  put<T>(): Promise<T> {
    return Promise.reject(new Error('read only'));
  }
  delete(): Promise<void> {
    return Promise.reject(new Error('read only'));
  }
}

/** project p1 > environment e1 > services s1, s2 with a variable each: 7 lists a warm run can verify. */
function world(): SlowApi {
  const api = new SlowApi({
    '/organization': { results: [{ id: ORG, name: 'acme', organization_plan: { audit_logs_retention_in_days: 30 } }] },
    [`/organization/${ORG}/project`]: { results: [{ id: 'p1', name: 'shop' }] },
    '/project/p1/environment': { results: [{ id: 'e1', name: 'prod' }] },
    '/environment/e1/services': { results: [{ id: 's1', name: 'api', service_type: 'APPLICATION' }, { id: 's2', name: 'web', service_type: 'APPLICATION' }] },
    '/environment/e1/statuses': { applications: [] },
    [varKey('s1')]: { results: [{ id: 'v1', key: 'A', value: '1', scope: 'APPLICATION' }] },
    [varKey('s2')]: { results: [{ id: 'v2', key: 'B', value: '2', scope: 'APPLICATION' }] },
  });
  clockMs += 1000;
  api.events.push({ id: `ev${clockMs}`, timestamp: new Date(clockMs).toISOString(), event_type: 'UPDATE', target_type: 'APPLICATION', origin: 'CONSOLE' });
  return api;
}

/** A reader in the shape of readLiveRecords: each level waits for the lists above it. */
async function read(port: ApiPort): Promise<LiveRecords> {
  const organization = listResults(await port.get('/organization'))[0]!;
  const projects = listResults(await port.get(`/organization/${ORG}/project`));
  const out: LiveRecords = { organization, lists: { projects }, environments: new Map(), variables: new Map(), services: new Map(), stages: new Map(), statuses: new Map() };
  for (const p of projects) {
    const envs = listResults(await port.get(`/project/${p.id}/environment`));
    out.environments.set(p.id, envs);
    for (const e of envs) {
      const services = listResults(await port.get(`/environment/${e.id}/services`));
      out.services.set(e.id, services);
      out.statuses.set(e.id, await port.get(`/environment/${e.id}/statuses`));
      for (const s of services) out.variables.set(s.id, listResults(await port.get('/variable', { parent_id: s.id, scope: 'APPLICATION' })));
    }
  }
  return out;
}

async function warm(api: SlowApi): Promise<LiveSnapshot> {
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
