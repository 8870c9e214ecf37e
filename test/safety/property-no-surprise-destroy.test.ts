/**
 * Property (issue "Safe by construction", done-when): random manifest edits that change immutable
 * fields, reference missing objects or remove declarations never make an apply delete a live
 * object unless the command line allows it (`--allow-replace`, `--allow-data-loss`) or the manifest
 * opts into pruning; and the apply's own count of destroyed objects always equals the objects that
 * really disappeared from the platform (read straight from the emulator, not from driftless).
 *
 * Each run starts from a fresh emulator with the same applied base organization, applies one
 * random edit set with random flags, and compares the emulator's records before and after.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { startHarness, FAST, type Harness } from '../e2e/helpers.js';

const SECRET_VALUE = 'sk_live_property-secret-value';
const ENV = { PROP_SECRET: SECRET_VALUE };

type Manifest = { version: 1; projects: any[] };

/** The organization every run starts from: two environments, deployed services of each kind, variables at every scope. */
function baseManifest(): Manifest {
  const services = (env: string) => [
    {
      type: 'application', name: 'api',
      git_repository: { url: 'https://github.com/driftless-examples/api.git', branch: 'main' },
      dockerfile_path: 'Dockerfile', cpu: 250, memory: 256,
      ports: [{ internal_port: 8080, publicly_accessible: true }],
      variables: [
        { key: 'API_KEY', value: '${env:PROP_SECRET}', secret: true },
        { key: 'FEATURE_FLAG', value: 'on' },
        { key: 'API_LOG_LEVEL', alias: 'LOG_LEVEL' },
      ],
    },
    { type: 'container', name: 'web', registry: 'docker-hub', image_name: 'library/nginx', tag: '1.27', cpu: 250, memory: 256 },
    { type: 'database', name: 'db', database_type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', storage: 10 },
    ...(env === 'staging' ? [{ type: 'container', name: 'worker', registry: 'docker-hub', image_name: 'library/busybox', tag: '1.36' }] : []),
  ];
  // preview holds no database, so no data-loss guard stands between it and a replacement.
  const preview = {
    name: 'preview', mode: 'DEVELOPMENT', cluster: 'staging-cluster',
    variables: [{ key: 'REGION', value: 'preview' }],
    services: [{ type: 'container', name: 'web', registry: 'docker-hub', image_name: 'library/nginx', tag: '1.27', cpu: 250, memory: 256 }],
  };
  const environment = (name: string, cluster: string, mode: string) => ({
    name, mode, cluster,
    variables: [{ key: 'REGION', value: name }],
    deployment_stages: [
      { name: 'data', services: ['db'] },
      { name: 'apps', services: name === 'staging' ? ['api', 'web', 'worker'] : ['api', 'web'] },
    ],
    services: services(name),
  });
  return {
    version: 1,
    projects: [{
      name: 'shop',
      variables: [{ key: 'LOG_LEVEL', value: 'info' }, { key: 'SHARED', value: 'x' }],
      environments: [environment('staging', 'staging-cluster', 'STAGING'), environment('production', 'production-cluster', 'PRODUCTION'), preview],
    }],
  };
}

/** One edit of the manifest: immutable-field changes, references to what does not exist, removed declarations. */
interface Edit {
  name: string;
  apply(m: Manifest): void;
}

const env = (m: Manifest, name: string) => m.projects[0].environments.find((e: any) => e.name === name);
const svc = (m: Manifest, e: string, name: string) => env(m, e)?.services.find((s: any) => s.name === name);
const removeService = (m: Manifest, e: string, name: string) => {
  const environment = env(m, e);
  if (!environment) return;
  environment.services = environment.services.filter((s: any) => s.name !== name);
  for (const st of environment.deployment_stages) st.services = st.services.filter((n: string) => n !== name);
};

const EDITS: Edit[] = [
  { name: 'move staging to the production cluster (replace)', apply: (m) => { const e = env(m, 'staging'); if (e) e.cluster = 'production-cluster'; } },
  { name: 'move preview to the production cluster (replace)', apply: (m) => { const e = env(m, 'preview'); if (e) e.cluster = 'production-cluster'; } },
  { name: 'preview cluster typo (finding 1)', apply: (m) => { const e = env(m, 'preview'); if (e) e.cluster = 'stagging-cluster'; } },
  { name: 'remove the preview environment', apply: (m) => { m.projects[0].environments = m.projects[0].environments.filter((e: any) => e.name !== 'preview'); } },
  { name: 'cluster typo', apply: (m) => { const e = env(m, 'production'); if (e) e.cluster = 'production-clustr'; } },
  { name: 'database mode change (replace, data loss)', apply: (m) => { const s = svc(m, 'staging', 'db'); if (s) s.mode = 'MANAGED', s.instance_type = 'db.t3.micro'; } },
  { name: 'database type change (replace, data loss)', apply: (m) => { const s = svc(m, 'production', 'db'); if (s) s.database_type = 'MYSQL', s.version = '8.0'; } },
  { name: 'secret becomes plain (variable replace)', apply: (m) => { const v = svc(m, 'staging', 'api')?.variables.find((x: any) => x.key === 'API_KEY'); if (v) delete v.secret, v.value = 'plain'; } },
  { name: 'remove a service', apply: (m) => removeService(m, 'staging', 'worker') },
  { name: 'remove the database', apply: (m) => removeService(m, 'production', 'db') },
  { name: 'remove a service variable', apply: (m) => { const s = svc(m, 'production', 'api'); if (s) s.variables = s.variables.filter((v: any) => v.key !== 'FEATURE_FLAG'); } },
  { name: 'remove a project variable', apply: (m) => { m.projects[0].variables = m.projects[0].variables.filter((v: any) => v.key !== 'SHARED'); } },
  { name: 'remove an environment', apply: (m) => { m.projects[0].environments = m.projects[0].environments.filter((e: any) => e.name !== 'staging'); } },
  { name: 'missing registry', apply: (m) => { const s = svc(m, 'production', 'web'); if (s) s.registry = 'docker-hubb'; } },
  { name: 'alias to a missing variable', apply: (m) => { const v = svc(m, 'production', 'api')?.variables.find((x: any) => x.key === 'API_LOG_LEVEL'); if (v) v.alias = 'LOG_LEVL'; } },
  { name: 'stage names a missing service', apply: (m) => { const e = env(m, 'production'); if (e) e.deployment_stages[1].services.push('ghost'); } },
  { name: 'rename a service (delete + create)', apply: (m) => { const s = svc(m, 'production', 'web'); if (s) { s.name = 'web2'; for (const st of env(m, 'production').deployment_stages) st.services = st.services.map((n: string) => (n === 'web' ? 'web2' : n)); } } },
];

interface Snapshot {
  /** id -> "kind name" of every object driftless could delete. */
  ids: Map<string, string>;
  /** scope id + key of every variable (a variable replaced in place keeps its scope and key). */
  variableKeys: Set<string>;
}

function snapshot(h: Harness): Snapshot {
  const s = h.emu.state;
  const ids = new Map<string, string>();
  // Built-in variables belong to the platform (it rewrites them on its own): not driftless's to count.
  const variables = Object.values(s.variables).filter((v) => v.scope !== 'BUILT_IN');
  for (const [kind, records] of [['project', Object.values(s.projects)], ['environment', Object.values(s.environments)], ['service', Object.values(s.services)], ['stage', Object.values(s.deploymentStages)], ['variable', variables]] as const) {
    for (const r of records) ids.set(r.id, `${kind} ${String(r.name ?? r.key)}`);
  }
  const variableKeys = new Set(variables.map((v) => `${v.scope}:${v.parent_id ?? ''}:${v.key}`));
  return { ids, variableKeys };
}

function destroyedCount(stdout: string): number | undefined {
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const e = JSON.parse(line);
    if (e.type === 'change_summary' && e.operation === 'apply') return e.destroy;
  }
  return undefined;
}

describe('property: no apply deletes a live object without a flag or a prune opt-in', () => {
  let h: Harness | undefined;
  afterEach(async () => { await h?.close(); h = undefined; });

  it('random edits and flags: deletions only when allowed, and the destroyed count is what disappeared', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(EDITS, { minLength: 1, maxLength: 4 }),
        fc.record({ allowReplace: fc.boolean(), allowDataLoss: fc.boolean() }),
        async (edits, flags) => {
          await h?.close();
          h = await startHarness();
          h.write({ 'm/shop.yaml': stringify(baseManifest()) });
          const first = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: ENV });
          expect(first.code, first.stderr).toBe(0);
          const before = snapshot(h);

          const edited = baseManifest();
          for (const e of edits) e.apply(edited);
          h.write({ 'm/shop.yaml': stringify(edited) });
          const argv = ['apply', 'm', '--auto-approve', '--json', ...FAST];
          if (flags.allowReplace) argv.push('--allow-replace');
          if (flags.allowDataLoss) argv.push('--allow-data-loss');
          const r = await h.run(argv, { env: ENV });
          const after = snapshot(h);

          const gone = [...before.ids].filter(([id]) => !after.ids.has(id));
          const context = `edits: ${edits.map((e) => e.name).join('; ')}; flags: ${JSON.stringify(flags)}; exit ${r.code}\n${r.stderr}`;

          // No flag, no prune opt-in (the manifests never opt in): nothing disappears, except a
          // variable replaced in place, which is back under the same scope and key.
          if (!flags.allowReplace && !flags.allowDataLoss) {
            const lost = gone.filter(([, what]) => !what.startsWith('variable '));
            expect(lost, context).toEqual([]);
            expect([...before.variableKeys].filter((k) => !after.variableKeys.has(k)), context).toEqual([]);
          }
          // Whatever happened, the summary (when the apply got as far as writing) counts exactly
          // the objects that disappeared; an apply refused before any write deletes nothing.
          const destroyed = destroyedCount(r.stdout);
          expect(destroyed ?? 0, context).toBe(gone.length);
          expect(r.stdout + r.stderr).not.toContain(SECRET_VALUE);
        },
      ),
      { numRuns: 20, seed: Number(process.env.DRIFTLESS_PROPERTY_SEED ?? 20261125), endOnFailure: true },
    );
  }, 300_000);
});
