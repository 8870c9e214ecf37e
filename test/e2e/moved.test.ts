/**
 * `moved:` renames in place, against the emulator: every kind keeps its live id (and a service its
 * deployment history), the plan shows the renames as updates, the next plan is clean and the
 * entries are then reported as removable.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, ONLY_USAGE_LINE, startHarness, type Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

interface Names {
  project: string;
  env: string;
  stage: string;
  app: string;
  db: string;
  projectVar: string;
  envVar: string;
  appVar: string;
  annotations: string;
  labels: string;
}

const OLD: Names = {
  project: 'shop',
  env: 'staging',
  stage: 'apps',
  app: 'api',
  db: 'pg',
  projectVar: 'LOG_LEVEL',
  envVar: 'REGION',
  appVar: 'PORT',
  annotations: 'ingress',
  labels: 'cost',
};
const NEW: Names = {
  project: 'store',
  env: 'preprod',
  stage: 'services',
  app: 'backend',
  db: 'main-db',
  projectVar: 'LOGGING_LEVEL',
  envVar: 'CLOUD_REGION',
  appVar: 'HTTP_PORT',
  annotations: 'ingress-annotations',
  labels: 'cost-labels',
};

const manifest = (n: Names, moved = '') => `version: 1
annotation_groups:
  - name: ${n.annotations}
    annotations: { team: shop }
    scopes: [DEPLOYMENTS]
label_groups:
  - name: ${n.labels}
    labels: [{ key: cost-center, value: shop }]
projects:
  - name: ${n.project}
    variables:
      - key: ${n.projectVar}
        value: info
    environments:
      - name: ${n.env}
        cluster: staging-cluster
        variables:
          - key: ${n.envVar}
            value: eu-west-3
          - key: LOG_ALIAS
            alias: ${n.projectVar}
        deployment_stages:
          - name: ${n.stage}
            services: [${n.app}, ${n.db}]
        services:
          - type: application
            name: ${n.app}
            git_repository: { url: https://github.com/acme/api.git, branch: main }
            dockerfile_path: Dockerfile
            cpu: 500
            annotation_groups: [${n.annotations}]
            label_groups: [${n.labels}]
            variables:
              - key: ${n.appVar}
                value: "8080"
          - type: database
            name: ${n.db}
            database_type: POSTGRESQL
            version: "16"
            mode: CONTAINER
            storage: 10
${moved}`;

const P = (n: Names) => `project.${n.project}`;
const E = (n: Names) => `${P(n)}/environment.${n.env}`;
const RENAMES = (from: Names, to: Names) => [
  [P(from), P(to)],
  [`${P(to)}/environment.${from.env}`, E(to)],
  [`${E(to)}/deployment_stage.${from.stage}`, `${E(to)}/deployment_stage.${to.stage}`],
  [`${E(to)}/application.${from.app}`, `${E(to)}/application.${to.app}`],
  [`${E(to)}/database.${from.db}`, `${E(to)}/database.${to.db}`],
  [`${P(to)}/variable.${from.projectVar}`, `${P(to)}/variable.${to.projectVar}`],
  [`${E(to)}/variable.${from.envVar}`, `${E(to)}/variable.${to.envVar}`],
  [`${E(to)}/application.${to.app}/variable.${from.appVar}`, `${E(to)}/application.${to.app}/variable.${to.appVar}`],
  [`annotations_group.${from.annotations}`, `annotations_group.${to.annotations}`],
  [`labels_group.${from.labels}`, `labels_group.${to.labels}`],
];
const movedBlock = (pairs: string[][]) => `moved:\n${pairs.map(([f, t]) => `  - from: ${f}\n    to: ${t}\n`).join('')}`;

describe('moved: renames in place', () => {
  it('renames every kind with an update: same ids, deployment history kept, the next plan clean', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest(OLD) });
    const first = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(first.code, first.stderr).toBe(0);
    const s = h.emu.state;
    const idOf = (records: Record<string, Record<string, unknown>>, field: 'name' | 'key', value: string) =>
      Object.values(records).find((r) => r[field] === value)?.id as string | undefined;
    const before = {
      project: idOf(s.projects, 'name', OLD.project),
      env: idOf(s.environments, 'name', OLD.env),
      stage: idOf(s.deploymentStages, 'name', OLD.stage),
      app: idOf(s.services, 'name', OLD.app),
      db: idOf(s.services, 'name', OLD.db),
      projectVar: idOf(s.variables, 'key', OLD.projectVar),
      envVar: idOf(s.variables, 'key', OLD.envVar),
      appVar: idOf(s.variables, 'key', OLD.appVar),
      annotations: idOf(s.annotationsGroups, 'name', OLD.annotations),
      labels: idOf(s.labelsGroups, 'name', OLD.labels),
      alias: idOf(s.variables, 'key', 'LOG_ALIAS'),
    };
    for (const id of Object.values(before)) expect(id).toBeDefined();
    const history = structuredClone(s.serviceHistory[before.app!]);
    expect(history?.length).toBeGreaterThan(0);

    h.write({ 'm/main.yaml': manifest(NEW, movedBlock(RENAMES(OLD, NEW))) });
    const plan = await h.run(['plan', 'm', '--out', 'renames.plan']);
    expect(plan.code, plan.stderr).toBe(0);
    // Each renamed object shows its live address (entries may spell a renamed parent by its new name).
    const oldAddresses = [
      P(OLD),
      E(OLD),
      `${E(OLD)}/deployment_stage.${OLD.stage}`,
      `${E(OLD)}/application.${OLD.app}`,
      `${E(OLD)}/database.${OLD.db}`,
      `${P(OLD)}/variable.${OLD.projectVar}`,
      `${E(OLD)}/variable.${OLD.envVar}`,
      `${E(OLD)}/application.${OLD.app}/variable.${OLD.appVar}`,
      `annotations_group.${OLD.annotations}`,
      `labels_group.${OLD.labels}`,
    ];
    for (const from of oldAddresses) expect(plan.stdout).toContain(`~ renamed from ${from}\n`);
    expect(plan.stdout.match(/~ renamed from/g)?.length).toBe(oldAddresses.length);
    // Renames only: ten updates, nothing created or destroyed; the variables' new keys redeploy the application.
    expect(plan.stdout).toContain('Plan: 0 to add, 10 to change, 0 to destroy, 1 to deploy.');

    // Before apply, drift reports each rename as Git's (a `moved` entry), with its live address.
    const drift = await h.run(['drift', 'm', '--format', 'json']);
    expect(drift.code).toBe(2);
    const items = JSON.parse(drift.stdout).items as Array<{ address: string; origin: string; previous_address?: string; summary: string }>;
    expect(items.map((i) => i.previous_address).sort()).toEqual([...oldAddresses].sort());
    for (const i of items) {
      expect(i.origin).toBe('git');
      expect(i.summary).toBe(`renamed in Git from ${i.previous_address} (\`moved\`), not applied yet`);
    }

    const json = JSON.parse((await h.run(['show', 'renames.plan', '--format', 'json'])).stdout);
    const app = json.resource_changes.find((c: { address: string }) => c.address === `${E(NEW)}/application.${NEW.app}`);
    expect(app.previous_address).toBe(`${E(OLD)}/application.${OLD.app}`);
    expect(app.change.actions).toEqual(['update']);

    const markdown = (await h.run(['show', 'renames.plan', '--format', 'markdown'])).stdout;
    expect(markdown.match(/- ~ renamed from <code>/g)?.length).toBe(oldAddresses.length);

    const applied = await h.run(['apply', 'renames.plan', ...FAST]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('0 added, 10 changed, 0 destroyed');
    const after = {
      project: idOf(s.projects, 'name', NEW.project),
      env: idOf(s.environments, 'name', NEW.env),
      stage: idOf(s.deploymentStages, 'name', NEW.stage),
      app: idOf(s.services, 'name', NEW.app),
      db: idOf(s.services, 'name', NEW.db),
      projectVar: idOf(s.variables, 'key', NEW.projectVar),
      envVar: idOf(s.variables, 'key', NEW.envVar),
      appVar: idOf(s.variables, 'key', NEW.appVar),
      annotations: idOf(s.annotationsGroups, 'name', NEW.annotations),
      labels: idOf(s.labelsGroups, 'name', NEW.labels),
      // An alias of a renamed variable follows it: not replaced.
      alias: idOf(s.variables, 'key', 'LOG_ALIAS'),
    };
    expect(after).toEqual(before);
    // The deployment history of the renamed service is still its own, and starts with the same entries.
    expect(s.serviceHistory[after.app!]!.slice(0, history!.length)).toEqual(history);

    const again = await h.run(['plan', 'm']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes.');
    // Every entry is done: each says it can be removed.
    expect(again.stderr.match(/the entry can be removed/g)?.length).toBe(RENAMES(OLD, NEW).length);

    h.write({ 'm/main.yaml': manifest(NEW) });
    const clean = await h.run(['plan', 'm']);
    expect(clean.stdout).toContain('No changes.');
    expect(clean.stderr).toMatch(ONLY_USAGE_LINE);
  });
});

/** The manifest with only the application renamed (other names as in OLD). */
const appRenamed = (moved = '', pruneServices = false) =>
  manifest({ ...OLD, app: NEW.app }, moved).replace('        deployment_stages:', `${pruneServices ? '        prune: { services: true }\n' : ''}        deployment_stages:`);
const APP_OLD = `${E(OLD)}/application.${OLD.app}`;
const APP_NEW = `${E(OLD)}/application.${NEW.app}`;

describe('moved: what the plan says about renames', () => {
  it('warns that a create next to a live object of the same configuration looks like a rename, and shows the entry to add', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest(OLD) });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST])).code).toBe(0);
    const entry = `- {from: ${APP_OLD}, to: ${APP_NEW}}`;

    // Prune off: the old application would keep running next to the new one.
    h.write({ 'm/main.yaml': appRenamed() });
    const kept = await h.run(['plan', 'm']);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain('Plan: 2 to add');
    expect(kept.stderr).toContain(`${APP_NEW} (created) looks like a rename of ${APP_OLD} (not in the manifest)`);
    expect(kept.stderr).toContain('creates a second object next to the live one, which keeps running');
    expect(kept.stderr).toContain(entry);

    // Prune on: the old one would be deleted, and its variable with it (listed since issue 18).
    h.write({ 'm/main.yaml': appRenamed('', true) });
    const pruned = await h.run(['plan', 'm']);
    expect(pruned.stdout).toContain('2 to destroy');
    expect(pruned.stdout).toContain(`# ${APP_OLD}/variable.${OLD.appVar} will be destroyed`);
    expect(pruned.stderr).toContain(`${APP_NEW} (created) looks like a rename of ${APP_OLD} (deleted)`);
    expect(pruned.stderr).toContain(entry);

    // The entry shown, added as is, makes it a rename: no create, no delete, no warning.
    h.write({ 'm/main.yaml': appRenamed(`moved:\n  ${entry}\n`, true) });
    const renamed = await h.run(['plan', 'm']);
    expect(renamed.stdout).toContain(`~ renamed from ${APP_OLD}\n`);
    expect(renamed.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy, 0 to deploy.');
    expect(renamed.stderr).toMatch(ONLY_USAGE_LINE);
  });

  it('refuses an entry whose old and new addresses both exist live (it would merge them), and creates nothing', async () => {
    h = await startHarness();
    // Both applications exist live.
    h.write({ 'm/main.yaml': manifest(OLD).replace('          - type: database', `          - type: application\n            name: ${NEW.app}\n            git_repository: { url: https://github.com/acme/api.git, branch: main }\n            dockerfile_path: Dockerfile\n          - type: database`) });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST])).code).toBe(0);
    const services = Object.keys(h.emu.state.services).length;

    h.write({ 'm/main.yaml': appRenamed(`moved:\n  - from: ${APP_OLD}\n    to: ${APP_NEW}\n`) });
    const plan = await h.run(['plan', 'm']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(`moved: ${APP_OLD} and ${APP_NEW} both exist live; renaming would merge two live objects`);
    expect(plan.stderr).toMatch(/m\/main\.yaml:\d+:\d+/);
    const apply = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(apply.code).toBe(1);
    expect(Object.keys(h.emu.state.services).length).toBe(services);
    expect(Object.values(h.emu.state.services).map((s) => s.name)).toContain(OLD.app);
  });
});

describe('moved: validate', () => {
  it('refuses a bad entry offline, at its file:line:col, with what is allowed', async () => {
    h = await startHarness();
    h.write({
      'm/main.yaml': manifest(OLD),
      'm/renames.yaml': `version: 1\nmoved:\n  - from: ${APP_OLD}\n    to: ${E(OLD)}/application.bakend\n  - from: ${APP_OLD}\n    to: ${E(OLD)}\n`,
    });
    const r = await h.run(['validate', 'm']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`moved to: ${E(OLD)}/application.bakend is not declared in the manifest`);
    expect(r.stderr).toContain('m/renames.yaml:4:9');
    expect(r.stderr).toContain(`moved: ${APP_OLD} is an application and ${E(OLD)} an environment`);
    expect(r.stderr).toContain('m/renames.yaml:6:9');
    // No API request: validate is offline.
    expect(r.stderr).not.toMatch(/API requests?;/);
  });
});

const otherKinds = (names: { container: string; job: string; helm: string; terraform: string }, moved = '') => `version: 1
projects:
  - name: k
    environments:
      - name: dev
        cluster: staging-cluster
        services:
          - type: container
            name: ${names.container}
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27-alpine"
          - type: job
            name: ${names.job}
            source:
              git_repository: { url: https://github.com/x/migrate.git, branch: main }
              dockerfile_path: Dockerfile
            schedule:
              on_start:
                arguments: ["migrate"]
          - type: helm
            name: ${names.helm}
            source:
              helm_repository: { repository: bitnami, chart_name: redis, chart_version: "18.0.0" }
            arguments: ["--wait"]
          - type: terraform
            name: ${names.terraform}
            git_repository: { url: https://github.com/x/infra.git, branch: main }
            engine: TERRAFORM
            provider_version: "1.5.0"
            tf_vars:
              region: eu-west-1
${moved}`;

describe('moved: services of every other kind', () => {
  it('renames a container, a job, a helm chart and a terraform service in place, keeping their ids and history', async () => {
    h = await startHarness();
    const before = { container: 'web', job: 'migrate', helm: 'cache', terraform: 'infra' };
    const after = { container: 'frontend', job: 'db-migrate', helm: 'redis', terraform: 'network' };
    h.write({ 'm/main.yaml': otherKinds(before) });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST])).code).toBe(0);
    const s = h.emu.state;
    const ids = (names: Record<string, string>) => Object.fromEntries(Object.entries(names).map(([k, n]) => [k, Object.values(s.services).find((x) => x.name === n)?.id]));
    const idsBefore = ids(before);
    const histories = Object.fromEntries(Object.values(idsBefore).map((id) => [id, s.serviceHistory[id!]?.length ?? 0]));
    const env = 'project.k/environment.dev';
    const entries = (['container', 'job', 'helm', 'terraform'] as const).map((k) => `  - from: ${env}/${k}.${before[k]}\n    to: ${env}/${k}.${after[k]}\n`).join('');
    h.write({ 'm/main.yaml': otherKinds(after, `moved:\n${entries}`) });
    const plan = await h.run(['plan', 'm']);
    expect(plan.stdout).toContain('Plan: 0 to add, 4 to change, 0 to destroy, 0 to deploy.');
    const applied = await h.run(['apply', 'm', '--auto-approve', '--json', ...FAST]);
    expect(applied.code, applied.stderr).toBe(0);
    // The machine-readable stream names each rename too (Terraform's previous_address).
    const planned = applied.stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.type === 'planned_change');
    expect(planned.map((e) => [e.address, e.previous_address, e['@message']])).toEqual(
      (['container', 'job', 'helm', 'terraform'] as const).map((k) => [`${env}/${k}.${after[k]}`, `${env}/${k}.${before[k]}`, `${env}/${k}.${after[k]}: plan to update (renamed from ${env}/${k}.${before[k]})`]),
    );
    expect(ids(after)).toEqual(idsBefore);
    for (const [id, n] of Object.entries(histories)) {
      expect(n).toBeGreaterThan(0);
      expect(s.serviceHistory[id]?.length).toBe(n);
    }
    expect((await h.run(['plan', 'm'])).stdout).toContain('No changes.');
  });
});
