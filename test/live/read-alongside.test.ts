/**
 * Issue 21: the walk down the tree (environments, services, variables) needs only the projects of
 * the organization's lists; the others (the clusters, which a warm run reads live every time, the
 * registries, the groups...) are read alongside it instead of before it: one round trip less on
 * every read, the same requests, and no more in flight than the parallelism asked for.
 */
import { describe, expect, it } from 'vitest';
import { readLiveRecords } from '../../src/live/read.js';
import { requestKey } from '../../src/live/touched.js';
import { buildGraph } from '../../src/graph/build.js';
import type { DesiredGraph } from '../../src/model/resource.js';
import { after, emptyBesides, ReadOnlyApi } from '../support/read-only-api.js';

const ORG = 'org-1';

/** Answers after `delayMs(key)`; records when each request was sent and answered, and the most in flight. */
class TimedApi extends ReadOnlyApi {
  constructor(lists: Record<string, unknown>, delayMs: (key: string) => number) {
    super({ lists, wait: (key) => after(delayMs(key)), missing: emptyBesides(ORG) });
  }
}

function graphOf(manifest: Record<string, unknown>): DesiredGraph {
  const built = buildGraph({ version: 1, ...manifest } as never);
  expect(built.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return built.graph;
}

const lists = {
  [`/organization/${ORG}/project`]: { results: [{ id: 'p1', name: 'shop' }] },
  [`/organization/${ORG}/cluster`]: { results: [{ id: 'c1', name: 'c1' }] },
  '/project/p1/environment': { results: [{ id: 'e1', name: 'prod' }] },
  '/environment/e1/services': { results: [{ id: 's1', name: 'api', service_type: 'APPLICATION' }] },
};
const manifest = {
  clusters: [{ name: 'c1', cloud_provider: 'AWS', region: 'eu-west-3' }],
  projects: [{ name: 'shop', environments: [{ name: 'prod', cluster: 'c1', services: [{ type: 'application', name: 'api', git_repository: { url: 'https://github.com/acme/api.git' } }] }] }],
};

describe('readLiveRecords: the organization-level lists alongside the walk', () => {
  it('asks for the environments before the clusters have answered, and reads what it read before', async () => {
    const api = new TimedApi(lists, (key) => (key.endsWith('/cluster') ? 40 : 1));
    const out = await readLiveRecords(api, graphOf(manifest));
    const at = (line: string) => api.log.indexOf(line);
    expect(at('sent /project/p1/environment')).toBeGreaterThan(-1);
    expect(at('sent /project/p1/environment')).toBeLessThan(at(`answered /organization/${ORG}/cluster`));
    // The projects are still the first list asked for.
    expect(api.log.filter((l) => l.startsWith('sent '))[1]).toBe(`sent /organization/${ORG}/project`);
    expect(out.lists.clusters).toEqual([{ id: 'c1', name: 'c1' }]);
    expect(out.services.get('e1')).toEqual([{ id: 's1', name: 'api', service_type: 'APPLICATION' }]);
  });

  it('keeps to the parallelism asked for, the organization-level lists and the walk together', async () => {
    const many = Array.from({ length: 6 }, (_, i) => ({ id: `q${i}`, name: `p${i}` }));
    const wide = { ...lists, [`/organization/${ORG}/project`]: { results: many } };
    const m = { clusters: manifest.clusters, projects: many.map((p) => ({ name: p.name, environments: [{ name: 'prod', cluster: 'c1' }] })) };
    for (const parallelism of [1, 2]) {
      const api = new TimedApi(wide, (key) => (key.endsWith('/cluster') ? 20 : 2));
      await readLiveRecords(api, graphOf(m), { parallelism });
      expect(api.maxInFlight, `parallelism ${parallelism}`).toBe(parallelism);
      expect(api.log.filter((l) => l.startsWith('sent /project/'))).toHaveLength(6);
    }
  });
});
