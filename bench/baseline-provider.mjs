#!/usr/bin/env node
/**
 * The Terraform provider's refresh, replayed: one read per resource attribute group, no list
 * calls, no cache (../shared/docs/PRIOR-ART.md, Terraform provider, section 4 "Reading live state
 * (refresh cost)"). Issued against the same API, through the same HTTP client and with the same
 * parallelism as driftless, so that only the read pattern differs.
 *
 * Per resource (PRIOR-ART §4):
 *   application (9)  get, environment variables, secrets, custom domains, deployment stage,
 *                    advanced settings, default advanced settings, deployment restrictions,
 *                    external secrets (unified /variable list)
 *   container (10)   get, deployment stage, advanced settings, default advanced settings, custom
 *                    domains, environment variables, secrets, external secrets, external secret
 *                    files, status
 *   environment (5)  get, environment variables, secrets, external secrets, status
 *   project (3)      get, environment variables, secrets
 *   deployment stage (1) get
 * `--pattern six` issues only the six reads per service that issue 6 names (get, variables,
 * secrets, stage, status, settings), a lower bound of the provider's cost.
 *
 * Terraform knows every id from its state file, so the ids are discovered first with list calls
 * that are NOT part of the replay (`discoveryRequests` in the result). Endpoints the emulator does
 * not serve (custom domains, deployment restrictions, advanced settings) still cost a round trip:
 * their 4xx answers are counted (`notServed`), as the real API would answer them with 200.
 *
 * Standalone: DRIFTLESS_API_URL=... DRIFTLESS_API_TOKEN=... node bench/baseline-provider.mjs [--parallelism 8] [--pattern provider|six]
 * prints one JSON line {requests, wallMs, byKind, notServed, ...}.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { dist } from './lib/paths.mjs';

/** The reads of one resource: [label, path, query?]. */
export function readsOf(kind, id, pattern = 'provider') {
  const k = kind; // application | container | environment | project | deployment_stage
  const unified = (scope, extra = {}) => ['/variable', { parent_id: id, scope, ...extra }];
  if (pattern === 'six' && (k === 'application' || k === 'container')) {
    return [
      ['get', `/${k}/${id}`],
      ['variables', `/${k}/${id}/environmentVariable`],
      ['secrets', `/${k}/${id}/secret`],
      ['stage', `/service/${id}/deploymentStage`],
      ['status', `/${k}/${id}/status`],
      ['settings', `/${k}/${id}/advancedSettings`],
    ];
  }
  switch (k) {
    case 'application':
      return [
        ['get', `/application/${id}`],
        ['variables', `/application/${id}/environmentVariable`],
        ['secrets', `/application/${id}/secret`],
        ['custom domains', `/application/${id}/customDomain`],
        ['stage', `/service/${id}/deploymentStage`],
        ['settings', `/application/${id}/advancedSettings`],
        ['default settings', '/application/defaultAdvancedSettings'],
        ['deployment restrictions', `/application/${id}/deploymentRestriction`],
        ['external secrets', ...unified('APPLICATION')],
      ];
    case 'container':
      return [
        ['get', `/container/${id}`],
        ['stage', `/service/${id}/deploymentStage`],
        ['settings', `/container/${id}/advancedSettings`],
        ['default settings', '/container/defaultAdvancedSettings'],
        ['custom domains', `/container/${id}/customDomain`],
        ['variables', `/container/${id}/environmentVariable`],
        ['secrets', `/container/${id}/secret`],
        ['external secrets', ...unified('CONTAINER')],
        ['external secret files', ...unified('CONTAINER', { is_secret: true })],
        ['status', `/container/${id}/status`],
      ];
    case 'environment':
      return [
        ['get', `/environment/${id}`],
        ['variables', `/environment/${id}/environmentVariable`],
        ['secrets', `/environment/${id}/secret`],
        ['external secrets', ...unified('ENVIRONMENT')],
        ['status', `/environment/${id}/status`],
      ];
    case 'project':
      return [
        ['get', `/project/${id}`],
        ['variables', `/project/${id}/environmentVariable`],
        ['secrets', `/project/${id}/secret`],
      ];
    case 'deployment_stage':
      return [['get', `/deploymentStage/${id}`]];
    default:
      return [];
  }
}

const results = (r) => (Array.isArray(r) ? r : (r?.results ?? []));

/** The ids Terraform would hold in its state: read with list calls (not part of the replay). */
export async function discover(client) {
  const org = await client.get('/organization');
  const orgId = (results(org)[0] ?? org).id;
  const resources = [];
  for (const p of results(await client.get(`/organization/${orgId}/project`))) {
    resources.push({ kind: 'project', id: p.id });
    for (const e of results(await client.get(`/project/${p.id}/environment`))) {
      resources.push({ kind: 'environment', id: e.id });
      for (const st of results(await client.get(`/environment/${e.id}/deploymentStage`))) resources.push({ kind: 'deployment_stage', id: st.id });
      for (const s of results(await client.get(`/environment/${e.id}/services`))) {
        resources.push({ kind: String(s.service_type).toLowerCase(), id: s.id });
      }
    }
  }
  return resources;
}

/**
 * Replays the provider's refresh over `resources` with `parallelism` requests in flight (the
 * client's queue). Returns requests sent, wall time, and reads per resource kind.
 */
export async function replay(client, resources, { pattern = 'provider' } = {}) {
  const reads = [];
  const byKind = {};
  for (const r of resources) {
    const rs = readsOf(r.kind, r.id, pattern);
    byKind[r.kind] ??= { resources: 0, reads: 0 };
    byKind[r.kind].resources++;
    byKind[r.kind].reads += rs.length;
    for (const [label, path, query] of rs) reads.push({ kind: r.kind, label, path, query });
  }
  const before = client.stats().total;
  // 4xx: an endpoint the emulator does not serve (404), or a path it reads as another route with
  // a non-UUID id (400). Either way one round trip was paid, as it would be against the real API.
  let notServed = 0;
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(
    reads.map(async ({ path, query }) => {
      try {
        await client.get(path, query ? { query } : {});
      } catch (e) {
        const status = e?.status ?? e?.statusCode;
        if (typeof status === 'number' && status >= 400 && status < 500) notServed++;
        else failed++;
      }
    }),
  );
  const wallMs = performance.now() - t0;
  return { requests: client.stats().total - before, wallMs, byKind, notServed, failed };
}

export async function runBaseline({ url, token, parallelism = 8, pattern = 'provider' }) {
  const { createApiClient } = await dist('api/index.js');
  const client = createApiClient({ baseUrl: url, token, parallelism, retries: 0 });
  try {
    const resources = await discover(client);
    const discoveryRequests = client.stats().total;
    const r = await replay(client, resources, { pattern });
    return { ...r, discoveryRequests, resources: resources.length, parallelism, pattern };
  } finally {
    await client.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : dflt;
  };
  const url = opt('url', process.env.DRIFTLESS_API_URL);
  const token = process.env.DRIFTLESS_API_TOKEN;
  if (!url || !token) {
    process.stderr.write('baseline-provider: set DRIFTLESS_API_URL (or --url) and DRIFTLESS_API_TOKEN\n');
    process.exit(1);
  }
  const res = await runBaseline({ url, token, parallelism: Number(opt('parallelism', '8')), pattern: opt('pattern', 'provider') });
  process.stdout.write(JSON.stringify(res) + '\n');
}
