/**
 * `protect: true` against the emulator (issue 18): a protected project, environment or service is
 * never deleted or replaced, whatever the flags; the plan says so at the line of the mark. The mark
 * is recorded on the live project or service (in its description, never shown), so that removing
 * the declaration is refused until an apply with `protect: false` clears it; plan -> apply -> plan
 * ends in "No changes" whichever way the mark goes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const ALL_FLAGS = ['--allow-replace', '--allow-data-loss'];

interface Opts {
  projectProtect?: string;
  envProtect?: string;
  apiProtect?: string;
  dbProtect?: string;
  /** The environment's cluster (a change replaces the environment). */
  cluster?: string;
  /** The kind the service `api` is declared with (a change replaces it). */
  apiKind?: 'application' | 'container';
  withApi?: boolean;
  withDb?: boolean;
  withEnv?: boolean;
  envPrune?: boolean;
  projectPrune?: boolean;
}

/** Project shop / environment prod: an application `api` and a database `pg`, each optionally marked. */
function manifest(o: Opts = {}): string {
  const line = (v: string | undefined, indent: string) => (v === undefined ? '' : `${indent}protect: ${v}\n`);
  const api =
    o.withApi === false
      ? ''
      : (o.apiKind ?? 'application') === 'application'
        ? `          - type: application
            name: api
${line(o.apiProtect, '            ')}            git_repository: { url: https://github.com/acme/api.git }
            dockerfile_path: Dockerfile
`
        : `          - type: container
            name: api
${line(o.apiProtect, '            ')}            registry: docker-hub
            image_name: nginx
            tag: "1.25"
`;
  const db =
    o.withDb === false
      ? ''
      : `          - type: database
            name: pg
${line(o.dbProtect, '            ')}            database_type: POSTGRESQL
            version: "16"
            mode: CONTAINER
            storage: 10
`;
  const env =
    o.withEnv === false
      ? ''
      : `      - name: prod
        mode: PRODUCTION
        cluster: ${o.cluster ?? 'production-cluster'}
${line(o.envProtect, '        ')}${o.envPrune ? '        prune: { services: true }\n' : ''}        services:
${api}${db}`;
  return `version: 1
projects:
  - name: shop
${line(o.projectProtect, '    ')}${o.projectPrune ? '    prune: { environments: true }\n' : ''}    environments:${env === '' ? ' []\n' : `\n${env}`}`;
}

/** Top-level prune of projects: a project removed from the manifest is deleted. */
const PRUNE_PROJECTS = 'prune: { projects: true }\n';

const ids = () => ({
  projects: Object.keys(h.emu.state.projects).sort(),
  environments: Object.keys(h.emu.state.environments).sort(),
  services: Object.keys(h.emu.state.services).sort(),
});

async function applyOk(extra: string[] = []): Promise<void> {
  const r = await h.run(['apply', 'm', '--auto-approve', ...FAST, ...extra]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
}

async function planClean(): Promise<void> {
  const r = await h.run(['plan', 'm', '--detailed-exitcode']);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toContain('No changes.');
  // Every mark recorded too: nothing left for an apply to write.
  expect(r.stdout).not.toContain('protect mark');
}

/** plan and apply, with every guard flag: both refused, nothing deleted; the plan names the mark's line. */
async function refusedWhateverTheFlags(address: string, markLine: RegExp): Promise<void> {
  const before = ids();
  const plan = await h.run(['plan', 'm', ...ALL_FLAGS, '--format', 'json']);
  expect(plan.code, plan.stderr).toBe(1);
  const doc = JSON.parse(plan.stdout);
  const change = doc.resource_changes.find((c: { address: string }) => c.address === address);
  expect(change.blocked.flags).toEqual([]);
  const protectedErrors = doc.diagnostics.filter((d: { code: string }) => d.code === 'plan.protected');
  expect(protectedErrors.length).toBeGreaterThan(0);
  expect(protectedErrors.map((d: { range?: { file: string; start: { line: number } } }) => (d.range ? `${d.range.file}:${d.range.start.line}` : '')).join(' ')).toMatch(markLine);
  const human = await h.run(['plan', 'm', ...ALL_FLAGS]);
  expect(human.code).toBe(1);
  expect(human.stderr).toContain('error[plan.protected]');
  expect(human.stderr).toMatch(markLine);
  const applied = await h.run(['apply', 'm', '--auto-approve', ...FAST, ...ALL_FLAGS, '--max-destroy', '100']);
  expect(applied.code).toBe(1);
  expect(ids()).toEqual(before);
}

describe('protect: true', () => {
  it('a protected service kind change (replacement) is refused whatever the flags, at the line of the mark', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest({ apiProtect: 'true' }) });
    await applyOk();
    await planClean();
    h.write({ 'm/main.yaml': manifest({ apiProtect: 'true', apiKind: 'container', envPrune: true }) });
    // Line 9 of main.yaml: `protect: true` under the service.
    // One replacement at the new address, naming the application it would delete.
    await refusedWhateverTheFlags('project.shop/environment.prod/container.api', /m\/main\.yaml:12\b/);
  });

  it('a protected environment is not replaced (cluster change), whatever the flags; what goes with it neither', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest({ envProtect: 'true' }) });
    await applyOk();
    await planClean();
    h.write({ 'm/main.yaml': manifest({ envProtect: 'true', cluster: 'staging-cluster' }) });
    await refusedWhateverTheFlags('project.shop/environment.prod', /m\/main\.yaml:8\b/);
    // Its database goes with it: blocked as well, not counted.
    const json = JSON.parse((await h.run(['plan', 'm', ...ALL_FLAGS, '--format', 'json'])).stdout);
    const db = json.resource_changes.find((c: { address: string }) => c.address === 'project.shop/environment.prod/database.pg');
    expect(db.blocked).toBeDefined();
    expect(json.summary.destroy).toBe(0);
  });

  it('an environment holding a protected database is not replaced, whatever the flags', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest({ dbProtect: 'true' }) });
    await applyOk();
    await planClean();
    // The environment's cluster changes: a replacement, which would take the database along.
    h.write({ 'm/main.yaml': manifest({ dbProtect: 'true', cluster: 'staging-cluster' }) });
    await refusedWhateverTheFlags('project.shop/environment.prod', /m\/main\.yaml:15\b/);
    const json = JSON.parse((await h.run(['plan', 'm', ...ALL_FLAGS, '--format', 'json'])).stdout);
    const env = json.resource_changes.find((c: { address: string }) => c.address === 'project.shop/environment.prod');
    expect(env.blocked.reasons.join()).toContain('project.shop/environment.prod/database.pg, which goes with it');
    // What goes with the environment (its application) is blocked with it.
    const api = json.resource_changes.find((c: { address: string }) => c.address === 'project.shop/environment.prod/application.api');
    expect(api.blocked).toBeDefined();
  });

  it('a protected project is not pruned, whatever the flags', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': PRUNE_PROJECTS + manifest({ projectProtect: 'true', withDb: false }) });
    await applyOk();
    await planClean();
    h.write({ 'm/main.yaml': PRUNE_PROJECTS + 'projects: []\n' });
    const before = ids();
    const plan = await h.run(['plan', 'm', ...ALL_FLAGS]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('project.shop: the plan would delete it, whose live record carries the protect mark');
    const applied = await h.run(['apply', 'm', '--auto-approve', ...FAST, ...ALL_FLAGS]);
    expect(applied.code).toBe(1);
    expect(ids()).toEqual(before);
  });

  it('apply --json names a mark-only step for what it is: no-op with protect_mark, never an update the summary does not count', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest({ withDb: false }) });
    await applyOk();
    const api = 'project.shop/environment.prod/application.api';
    const linesOf = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const about = (lines: Record<string, unknown>[]) => lines.filter((e) => e.address === api).map((e) => ({ type: e.type, action: e.action, protect_mark: e.protect_mark, message: e['@message'] }));

    for (const [mark, verb] of [
      [true, 'record'],
      [false, 'clear'],
    ] as const) {
      h.write({ 'm/main.yaml': manifest({ withDb: false, apiProtect: String(mark) }) });
      const applied = await h.run(['apply', 'm', '--auto-approve', '--json', ...FAST]);
      expect(applied.code, applied.stderr).toBe(0);
      const lines = linesOf(applied.stdout);
      // Every line about the service says what the plan JSON says (`["no-op"]`, `protect_mark`), and no line claims an update.
      expect(about(lines).map(({ type, action, protect_mark }) => ({ type, action, protect_mark }))).toEqual([
        { type: 'planned_change', action: 'no-op', protect_mark: mark },
        { type: 'apply_start', action: 'no-op', protect_mark: mark },
        { type: 'apply_complete', action: 'no-op', protect_mark: mark },
      ]);
      expect(about(lines)[0]!.message).toBe(`${api}: plan to ${verb} the protect mark`);
      expect(lines.filter((e) => e.action === 'update')).toEqual([]);
      const summaries = lines.filter((e) => e.type === 'change_summary');
      expect(summaries.map((e) => [e.operation, e.add, e.change, e.destroy, e.deploy])).toEqual([
        ['plan', 0, 0, 0, 0],
        ['apply', 0, 0, 0, 0],
      ]);
      expect(String(h.emu.state.services[Object.values(h.emu.state.services).find((s) => s.name === 'api')!.id as string]!.description ?? '').includes('protect=true')).toBe(mark);
    }

    // The human apply says it too: no "Modifying" of an object it does not change.
    h.write({ 'm/main.yaml': manifest({ withDb: false, apiProtect: 'true' }) });
    const human = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).not.toContain('Modif');
    expect(human.stdout).toContain(`${api}: Recording the protect mark...`);
    expect(human.stdout).toContain('Resources: 0 added, 0 changed, 0 destroyed; 0 deployed.');
    await planClean();
  });

  it('the live mark outlives the declaration until an apply with protect: false clears it; no phantom diff either way', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest({ apiProtect: 'true', envPrune: true, dbProtect: 'false' }) });
    await applyOk();
    await planClean();
    const api = Object.values(h.emu.state.services).find((s) => s.name === 'api')!;
    // Recorded in the description, never shown as the description nor as drift.
    expect(String(api.description)).toContain('protect=true');
    const drift = await h.run(['drift', 'm']);
    expect(drift.code, drift.stdout).toBe(0);

    // A description of its own, then an unrelated change: the mark stays, the description shows clean.
    h.write({ 'm/main.yaml': manifest({ apiProtect: 'true', envPrune: true }).replace('            git_repository', '            description: Orders API\n            cpu: 750\n            git_repository') });
    const described = await h.run(['plan', 'm']);
    expect(described.stdout).not.toContain('driftless:v1');
    await applyOk();
    await planClean();
    // The key left out: the mark stays as it is (no change), and still protects.
    h.write({ 'm/main.yaml': manifest({ envPrune: true }).replace('            git_repository', '            description: Orders API\n            cpu: 750\n            git_repository') });
    await planClean();

    // The declaration removed, mark and all: refused, whatever the flags.
    h.write({ 'm/main.yaml': manifest({ withApi: false, envPrune: true }) });
    const before = ids();
    const plan = await h.run(['plan', 'm', ...ALL_FLAGS]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('project.shop/environment.prod/application.api: the plan would delete it, whose live record carries the protect mark');
    const refused = await h.run(['apply', 'm', '--auto-approve', ...FAST, ...ALL_FLAGS]);
    expect(refused.code).toBe(1);
    expect(ids()).toEqual(before);

    // protect: false clears the mark (driftless's note, said in one line, not a change to the
    // service), and the next plan is clean.
    h.write({ 'm/main.yaml': manifest({ apiProtect: 'false', envPrune: true }) });
    const clearing = await h.run(['plan', 'm', '--detailed-exitcode']);
    expect(clearing.stdout).toContain('Apply also clears it from 1 object (project.shop/environment.prod/application.api)');
    expect(clearing.stdout).toContain('No changes.');
    expect(clearing.code).toBe(0);
    await applyOk();
    await planClean();
    expect(String(h.emu.state.services[api.id as string]!.description ?? '')).not.toContain('protect');
    // Now the removal goes through.
    h.write({ 'm/main.yaml': manifest({ withApi: false, envPrune: true }) });
    await applyOk(ALL_FLAGS);
    expect(Object.values(h.emu.state.services).some((s) => s.name === 'api' && !/DELET/.test(String(h.emu.state.serviceStatuses[s.id as string]?.state ?? '')))).toBe(false);
  });
});
