/**
 * Finding 1: a typo in a cluster name destroyed an environment. `plan` showed a replacement of
 * `preview` (it had read the clusters), `apply --auto-approve` deleted the environment with its
 * services and variables, failed to create the new one, and said `0 destroyed`.
 *
 * Now: a name of something driftless cannot create is a plan error (with the suggestion
 * `validate --remote` makes, from the same check); a replacement of an environment is blocked
 * without --allow-replace; and the apply summary counts what really disappeared.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';
import { startProxy, type Proxy } from '../support/proxy.js';
import { destroyedCount, disappeared, ownedObjects, previewManifest, settledObjects } from './guards-support.js';

let h: Harness;
let proxy: Proxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await h?.close();
});

const apply = (...extra: string[]) => h.run(['apply', 'm', '--auto-approve', ...FAST, ...extra]);

async function appliedPreview(): Promise<void> {
  h = await startHarness();
  h.write({ 'm/main.yaml': previewManifest('staging-cluster') });
  const first = await apply();
  expect(first.code, first.stdout + first.stderr).toBe(0);
}

describe('finding 1: a cluster typo', () => {
  it('finding 1: a cluster that does not exist is a plan error with a suggestion, not a replacement; apply deletes nothing; validate --remote says the same', async () => {
    await appliedPreview();
    const before = ownedObjects(h.emu);
    h.write({ 'm/main.yaml': previewManifest('stagging-cluster') });

    const plan = await h.run(['plan', 'm']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('cluster `stagging-cluster` does not exist in the organization');
    expect(plan.stderr).toContain('Did you mean `staging-cluster`? Known: production-cluster, staging-cluster.');
    // At the place the name is written: line 7 of the manifest, after `cluster: `.
    expect(plan.stderr).toContain('m/main.yaml:7:18');
    expect(plan.stdout).not.toContain('-/+');
    expect(plan.stdout).not.toContain('to destroy');
    expect((await h.run(['plan', 'm', '--detailed-exitcode'])).code).toBe(1);

    const a = await apply();
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('cluster `stagging-cluster` does not exist in the organization');
    expect(await settledObjects(h.emu)).toEqual(before);

    // The remote validate makes the same check with the same words and place.
    const v = await h.run(['validate', 'm', '--remote']);
    expect(v.code).toBe(1);
    // Its summary, place and advice lines (validate also prints an excerpt of the line).
    const diagnosticOf = (stderr: string) => stderr.split('\n').filter((l) => /^\s*(error\[|-->|= )/.test(l));
    expect(diagnosticOf(v.stderr)).toEqual(diagnosticOf(plan.stderr));
    expect(diagnosticOf(v.stderr)).toEqual([
      'error[ref.unresolved]: cluster `stagging-cluster` does not exist in the organization',
      ' --> m/main.yaml:7:18',
      '  = Did you mean `staging-cluster`? Known: production-cluster, staging-cluster.',
      '  = at project.shop/environment.preview',
    ]);
  });

  it('finding 1: replacing an environment is blocked without --allow-replace (plan --detailed-exitcode exits 1), and with it the summary counts what disappeared', async () => {
    await appliedPreview();
    const before = ownedObjects(h.emu);
    const oldEnvId = Object.keys(h.emu.state.environments)[0]!;
    h.write({ 'm/main.yaml': previewManifest('production-cluster') });

    const plan = await h.run(['plan', 'm']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('-/+ environment "preview"');
    expect(plan.stdout).toContain('# BLOCKED: needs --allow-replace');
    expect(plan.stdout).toContain('replaces environment "preview" with everything in it: re-run with --allow-replace to permit it');
    // Nothing of it is counted as done.
    expect(plan.stdout).toMatch(/Plan: 0 to add, 0 to change, 0 to destroy, 0 to deploy; \d+ blocked \(not done, not counted\)\./);

    const detailed = await h.run(['plan', 'm', '--detailed-exitcode']);
    expect(detailed.code).toBe(1);
    expect(detailed.stderr).toMatch(/blocked; apply refuses it without --allow-replace/);

    const json = JSON.parse((await h.run(['plan', 'm', '--json'])).stdout) as {
      summary: { add: number; destroy: number; blocked: number };
      resource_changes: Array<{ address: string; change: { actions: string[] }; blocked?: { reasons: string[]; flags: string[] } }>;
    };
    expect(json.summary).toMatchObject({ add: 0, destroy: 0 });
    const env = json.resource_changes.find((c) => c.address === 'project.shop/environment.preview')!;
    expect(env.change.actions).toEqual(['delete', 'create']);
    expect(env.blocked).toEqual({ reasons: ['replaces environment "preview" with everything in it'], flags: ['--allow-replace'] });
    expect(json.summary.blocked).toBe(json.resource_changes.filter((c) => c.blocked).length);

    // One cause, one list entry and one refusal (not one per service and variable).
    expect(plan.stdout).toContain('! project.shop/environment.preview, with 3 objects that go with it: replaces environment "preview" with everything in it (needs --allow-replace)');
    const refused = await apply();
    expect(refused.code).toBe(1);
    expect(refused.stderr.match(/error\[apply\.blocked\]/g)).toHaveLength(1);
    expect(refused.stderr).toContain('error[apply.blocked]: project.shop/environment.preview (with 3 objects that go with it): delete and create is blocked');
    expect(refused.stderr).toContain('Run plan and apply again with --allow-replace to allow it');
    expect(await settledObjects(h.emu)).toEqual(before);

    const allowedPlan = await h.run(['plan', 'm', '--allow-replace']);
    const planned = Number(/(\d+) to destroy/.exec(allowedPlan.stdout)![1]);
    const done = await apply('--allow-replace');
    expect(done.code, done.stdout + done.stderr).toBe(0);
    const gone = disappeared(before, await settledObjects(h.emu));
    expect(gone).toContain(`environment:${oldEnvId}`);
    expect(destroyedCount(done.stdout)).toBe(gone.length);
    expect(planned).toBe(gone.length);
    expect((await h.run(['plan', 'm'])).stdout).toContain('No changes.');
  });

  it('finding 1: when the new environment cannot be created, the summary still counts what the delete destroyed', async () => {
    await appliedPreview();
    const before = ownedObjects(h.emu);
    h.write({ 'm/main.yaml': previewManifest('production-cluster') });
    // The API refuses to create the new environment (the old one is already deleted by then).
    proxy = await startProxy(h.emu.url);
    proxy.rule = (req) => (req.method === 'POST' && /^\/project\/[^/]+\/environment$/.test(req.path) ? { status: 400, body: { status: 400, message: 'refused by the test' } } : undefined);
    const r = await h.run(['apply', 'm', '--auto-approve', '--allow-replace', ...FAST], { env: { DRIFTLESS_API_URL: proxy.url } });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Apply failed');
    const gone = disappeared(before, await settledObjects(h.emu));
    expect(gone.length).toBeGreaterThan(1);
    expect(destroyedCount(r.stdout)).toBe(gone.length);
  });
});
