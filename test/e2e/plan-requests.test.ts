/**
 * The exact requests a plan sends for a small organization, seen by a recording proxy between the
 * CLI and the emulator. A count within a budget lets one extra list through (the environment's
 * variable list read although a service's list, which holds the variables it inherits, covers it);
 * the exact set does not.
 *
 * Expected requests, from the rule of src/live/read.ts (issue 6): the organization and the
 * organization-level lists a manifest of projects needs (projects, clusters, container registries);
 * per project its environments; per environment its services and statuses; per service that
 * declares variables its unified variable list, which covers the environment's and the project's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startProxy, type Proxy } from '../support/proxy.js';
import { FAST, startHarness, type Harness } from './helpers.js';

let h: Harness | undefined;
let proxy: Proxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await h?.close();
  proxy = undefined;
  h = undefined;
});

const MANIFEST = `version: 1
projects:
  - name: shop
    variables:
      - key: REGION
        value: eu
    environments:
      - name: prod
        cluster: production-cluster
        variables:
          - key: LOG_LEVEL
            value: info
        services:
          - type: application
            name: api
            git_repository:
              url: https://github.com/acme/api.git
            dockerfile_path: Dockerfile
            variables:
              - key: PORT
                value: "8080"
          - type: container
            name: web
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27"
          - type: database
            name: db
            database_type: POSTGRESQL
            version: "16"
            mode: CONTAINER
      - name: staging
        cluster: staging-cluster
        variables:
          - key: DEBUG
            value: "1"
        services:
          - type: container
            name: web
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27"
            variables: []
`;

describe('the requests of a plan', () => {
  it('are exactly the lists the budget rule names: no environment or project variable list when a service list covers it', async () => {
  // The full read's own requests are measured here: no refresh cache, even in `npm run test:warm`.
    h = await startHarness({ refreshCache: false });
    h.write({ 'm/main.yaml': MANIFEST });
    const applied = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(applied.code, applied.stderr).toBe(0);

    // Names for the ids in the paths, from the emulator's state (not from driftless).
    const s = h.emu.state;
    const names = new Map<string, string>([[h.emu.organizationId, 'ORG']]);
    for (const p of Object.values(s.projects)) names.set(p.id, `project:${p.name}`);
    const envName = new Map<string, string>();
    for (const e of Object.values(s.environments)) envName.set(e.id, String(e.name));
    for (const e of Object.values(s.environments)) names.set(e.id, `env:${e.name}`);
    for (const svc of Object.values(s.services)) names.set(svc.id, `svc:${envName.get(String((svc.environment as { id: string }).id))}/${svc.name}`);
    const symbolic = (text: string) => text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => names.get(id) ?? `UNKNOWN(${id})`);
    const sortedQuery = (q: string) => [...new URLSearchParams(q)].map(([k, v]) => `${k}=${v}`).sort().join('&');

    proxy = await startProxy(h.emu.url);
    const r = await h.run(['plan', 'm', '--json'], { env: { DRIFTLESS_API_URL: proxy.url } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).summary).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0 });

    const seen = proxy.seen.map((x) => `${x.method} ${symbolic(x.path)}${x.query ? `?${symbolic(sortedQuery(x.query))}` : ''}`).sort();
    expect(seen).toEqual(
      [
        'GET /organization',
        'GET /organization/ORG/project',
        'GET /organization/ORG/cluster',
        'GET /organization/ORG/containerRegistry',
        'GET /project/project:shop/environment',
        'GET /environment/env:prod/services',
        'GET /environment/env:prod/statuses',
        'GET /environment/env:staging/services',
        'GET /environment/env:staging/statuses',
        'GET /variable?parent_id=svc:prod/api&scope=APPLICATION',
        'GET /variable?parent_id=svc:staging/web&scope=CONTAINER',
      ].sort(),
    );
    expect(proxy.seen.every((x) => x.status === 200)).toBe(true);
    expect(JSON.parse(r.stdout).request_count).toBe(seen.length);
  });
});
