/**
 * The refresh's side of a reused plan (src/live/refresh.ts `reuse`, src/cli/plan-memo.ts): a
 * refresh with no event since the cursor reports the answers it read live (`quiet`); given a
 * probe, it reads those again with the rotation before the reader's walk, and when the caller
 * accepts them the walk does not run. The requests are the walk's own, none is sent twice when
 * the walk runs after a refused probe, and the probe is not consulted after an event, for another
 * snapshot, or when the rotation finds a change.
 */
import { describe, expect, it } from 'vitest';
import type { ApiPort } from '../../src/live/api-port.js';
import type { LiveRecords } from '../../src/live/read.js';
import { readLiveRecordsCached, type LiveSnapshot, type ReuseProbe } from '../../src/live/refresh.js';
import { requestKey } from '../../src/live/touched.js';
import { canonical } from '../../src/live/verify.js';
import { ReadOnlyApi, readTree } from '../support/read-only-api.js';

const ORG = 'org-1';
let clockMs = Date.UTC(2026, 10, 28, 9, 0, 0);
const now = () => new Date(clockMs);
const CLUSTERS = `/organization/${ORG}/cluster`;
const varKey = (parent: string) => requestKey('/variable', { parent_id: parent, scope: 'APPLICATION' });

/** One organization, its audit log, and the GETs it answered (each on the next microtask). */
function world(): ReadOnlyApi {
  const api = new ReadOnlyApi({
    org: ORG,
    clockMs: () => clockMs,
    wait: () => Promise.resolve(),
    lists: {
      '/organization': { results: [{ id: ORG, name: 'acme', organization_plan: { audit_logs_retention_in_days: 30 } }] },
      [`/organization/${ORG}/project`]: { results: [{ id: 'p1', name: 'shop' }] },
      [CLUSTERS]: { results: [{ id: 'c1', name: 'prod-cluster' }] },
      '/project/p1/environment': { results: [{ id: 'e1', name: 'prod' }] },
      '/environment/e1/services': { results: [{ id: 's1', name: 'api', service_type: 'APPLICATION' }] },
      '/environment/e1/statuses': { applications: [] },
      [varKey('s1')]: { results: [{ id: 'v1', key: 'A', value: '1', scope: 'APPLICATION' }] },
    },
  });
  clockMs += 1000;
  api.events.push({ id: `ev${clockMs}`, timestamp: new Date(clockMs).toISOString(), event_type: 'UPDATE', target_type: 'APPLICATION', origin: 'CONSOLE' });
  return api;
}

/** A reader in the shape of readLiveRecords, reading the clusters with the projects, counting its runs. */
function reader() {
  const runs = { count: 0 };
  const read = (port: ApiPort): Promise<LiveRecords> => {
    runs.count++;
    return readTree(port, ORG, { clusters: CLUSTERS });
  };
  return { read, runs };
}

/** A full read, then a quiet refresh from its snapshot: the snapshot the probe is asked about, and the quiet answers. */
async function warmed(api: ReadOnlyApi): Promise<{ snapshot: LiveSnapshot; answers: Map<string, string> }> {
  const { read } = reader();
  const full = await readLiveRecordsCached(api, read, { previous: { unusable: 'no cache yet' }, now });
  expect(full.reader).toBe('full');
  expect(full.quiet).toBeUndefined();
  clockMs += 1000;
  const quiet = await readLiveRecordsCached(api, read, { previous: full.snapshot, now, verifyRequests: 1 });
  expect(quiet.reader).toBe('refresh');
  expect(quiet.quiet).toBeDefined();
  api.calls.length = 0;
  clockMs += 1000;
  return { snapshot: quiet.snapshot, answers: quiet.quiet!.answers };
}

function probe(snapshot: LiveSnapshot, answers: Map<string, string>, accept = true) {
  const seen: Array<ReadonlyMap<string, string>> = [];
  const p: ReuseProbe = {
    isFrom: (previous) => previous === snapshot,
    liveKeys: [...answers.keys()],
    accept: (now) => (seen.push(now), accept),
  };
  return { probe: p, seen };
}

const sorted = (xs: readonly string[]) => [...xs].sort();

describe('a quiet refresh', () => {
  it('reports the answers read live (the organization, the clusters) as canonical JSON; a refresh after an event does not', async () => {
    const api = world();
    const { snapshot, answers } = await warmed(api);
    expect(sorted([...answers.keys()])).toEqual(sorted(['/organization', CLUSTERS]));
    expect(answers.get(CLUSTERS)).toBe(canonical(api.lists[CLUSTERS]));
    clockMs += 1000;
    api.events.push({ id: `ev${clockMs}`, timestamp: new Date(clockMs).toISOString(), event_type: 'UPDATE', target_type: 'PROJECT', target_id: 'p1', origin: 'CONSOLE' });
    const after = await readLiveRecordsCached(api, reader().read, { previous: snapshot, now, verifyRequests: 1 });
    expect(after.reader).toBe('refresh');
    expect(after.quiet).toBeUndefined();
  });
});

describe('a refresh given a probe for a reused plan', () => {
  it('accepted: the reader does not run, and the requests are the ones its walk sends', async () => {
    const api = world();
    const { snapshot, answers } = await warmed(api);
    const { read, runs } = reader();
    const { probe: p, seen } = probe(snapshot, answers);
    const reused = await readLiveRecordsCached(api, read, { previous: snapshot, now, verifyRequests: 1, reuse: p });
    expect(reused.reused).toBe(true);
    expect(runs.count).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual(answers);
    const probeCalls = api.calls.splice(0);

    // The same refresh without a probe, from the same snapshot and rotation: the same requests.
    const walked = await readLiveRecordsCached(api, read, { previous: snapshot, now, verifyRequests: 1 });
    expect(walked.reused).toBeUndefined();
    expect(runs.count).toBe(1);
    expect(sorted(probeCalls)).toEqual(sorted(api.calls));
    // And the next snapshot holds the same answers.
    expect(reused.snapshot.responses).toEqual(walked.snapshot.responses);
  });

  it('refused: the reader runs, no request is sent twice, and the records are the walk\'s', async () => {
    const api = world();
    const { snapshot, answers } = await warmed(api);
    (api.lists[CLUSTERS] as { results: Array<{ name: string }> }).results[0]!.name = 'renamed';
    const { read, runs } = reader();
    const { probe: p, seen } = probe(snapshot, answers, false);
    const r = await readLiveRecordsCached(api, read, { previous: snapshot, now, verifyRequests: 1, reuse: p });
    expect(r.reused).toBeUndefined();
    expect(runs.count).toBe(1);
    expect(seen[0]!.get(CLUSTERS)).toContain('renamed');
    expect(new Set(api.calls).size).toBe(api.calls.length);
    expect(r.records.lists.clusters![0]!.name).toBe('renamed');
    // A refused probe leaves the run quiet: the plan made now may be kept.
    expect(r.quiet!.answers.get(CLUSTERS)).toContain('renamed');
  });

  it('is not consulted after an event, nor for another snapshot; a change the rotation finds is a full read', async () => {
    const api = world();
    const { snapshot, answers } = await warmed(api);

    const other = probe(snapshot, answers);
    const notFrom = await readLiveRecordsCached(api, reader().read, { previous: snapshot, now, verifyRequests: 1, reuse: { ...other.probe, isFrom: () => false } });
    expect(notFrom.reused).toBeUndefined();
    expect(other.seen).toHaveLength(0);

    clockMs += 1000;
    api.events.push({ id: `ev${clockMs}`, timestamp: new Date(clockMs).toISOString(), event_type: 'UPDATE', target_type: 'PROJECT', target_id: 'p1', origin: 'CONSOLE' });
    const evented = probe(snapshot, answers);
    const afterEvent = await readLiveRecordsCached(api, reader().read, { previous: snapshot, now, verifyRequests: 1, reuse: evented.probe });
    expect(afterEvent.reused).toBeUndefined();
    expect(evented.seen).toHaveLength(0);

    // No event, but every cached list verified, and one differs: the full read names it.
    const api2 = world();
    const warm2 = await warmed(api2);
    (api2.lists[varKey('s1')] as { results: Array<{ value: string }> }).results[0]!.value = 'changed';
    const rotated = probe(warm2.snapshot, warm2.answers);
    const r = await readLiveRecordsCached(api2, reader().read, { previous: warm2.snapshot, now, verifyRequests: 100, reuse: rotated.probe });
    expect(r.reader).toBe('full');
    expect(r.fullReadReason).toMatch(/^the audit log did not explain a change to /);
    expect(rotated.seen).toHaveLength(0);
  });
});
