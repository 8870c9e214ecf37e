/**
 * `driftless show PLANFILE` (issue 12): a saved plan printed exactly as `plan` printed it, in every
 * format, without any API call; a file that is not a plan, or is damaged, is one clear line.
 * And the JSON plan's Terraform-style fields, with an update's patch checked by applying it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import jsonPatch from 'fast-json-patch';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';
import { SECRET, SECRET_ENV, appManifest } from './fixtures.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** No API to talk to: show must not need one. */
const NO_API = { DRIFTLESS_API_URL: 'http://127.0.0.1:9', DRIFTLESS_API_TOKEN: '' };

const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string;

/** An organization where the manifest updates a service (cpu), a variable, a secret, and deploys. */
async function harnessWithUpdates(): Promise<void> {
  h = await startHarness();
  h.write({ 'm/main.yaml': appManifest() });
  const a = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV });
  expect(a.code, a.stderr).toBe(0);
  h.write({ 'm/main.yaml': appManifest({ cpu: 500, logLevel: 'debug', withWorker: true }) });
}

describe('show PLANFILE', () => {
  it('prints what plan --out printed, byte for byte, in human, json and markdown, without calling the API', async () => {
    await harnessWithUpdates();
    for (const format of ['human', 'json', 'markdown']) {
      const file = `plan-${format}.json`;
      const planned = await h.run(['plan', 'm', '--out', file, '--format', format], { env: { ...SECRET_ENV, E2E_API_KEY: 'rotated-secret-value' } });
      expect(planned.code, planned.stderr).toBe(0);
      expect(planned.stderr).toContain(`Saved the plan to ${file}`);
      const shown = await h.run(['show', file, '--format', format], { env: NO_API });
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toBe(planned.stdout);
      expect(shown.stdout).toMatch(format === 'json' ? /"resource_changes"/ : /cpu/);
      expect(shown.stdout + shown.stderr).not.toContain('rotated-secret-value');
    }
    // The default format is human; --json and --format json give the same document.
    expect((await h.run(['show', 'plan-human.json'], { env: NO_API })).stdout).toBe((await h.run(['show', 'plan-human.json', '--format', 'human'], { env: NO_API })).stdout);
    const viaJsonFlag = await h.run(['plan', 'm', '--out', 'p2.json', '--json'], { env: SECRET_ENV });
    expect((await h.run(['show', 'p2.json', '--format', 'json'], { env: NO_API })).stdout).toBe(viaJsonFlag.stdout);
  });

  it('a file that is not a plan, damaged or missing: one line on stderr, exit 1', async () => {
    await harnessWithUpdates();
    expect((await h.run(['plan', 'm', '--out', 'p.json'], { env: SECRET_ENV })).code).toBe(0);
    const saved = readFileSync(join(h.dir, 'p.json'), 'utf8');
    writeFileSync(join(h.dir, 'edited.json'), saved.replace('"cpu": 500', '"cpu": 4000'));
    writeFileSync(join(h.dir, 'truncated.json'), saved.slice(0, saved.length / 2));
    h.write({ 'manifest.json': '{"version": 1}\n' });
    const cases: Array<[string, RegExp]> = [
      ['edited.json', /edited\.json was edited after it was written: its content does not match its seal/],
      ['truncated.json', /truncated\.json is not a driftless plan file \(not valid JSON\)/],
      ['manifest.json', /manifest\.json is not a driftless plan file/],
      ['missing.json', /cannot read plan file .*missing\.json \(ENOENT\)/],
    ];
    for (const [file, message] of cases) {
      const r = await h.run(['show', file], { env: NO_API });
      expect(r.code, file).toBe(1);
      expect(r.stdout, file).toBe('');
      expect(r.stderr.trimEnd().split('\n'), file).toHaveLength(1);
      expect(r.stderr, file).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    // In JSON, the failure is a document too.
    const json = await h.run(['show', 'edited.json', '--format', 'json'], { env: NO_API });
    expect(JSON.parse(json.stdout)).toMatchObject({ errored: true, diagnostics: [{ code: 'planfile.tampered' }] });
  });

  it('verifies the seal with its own key; without the key the plan was sealed with, it still shows the plan and says it is unverified', async () => {
    await harnessWithUpdates();
    const planned = await h.run(['plan', 'm', '--out', 'p.json', '--format', 'markdown'], { env: SECRET_ENV });
    expect(planned.code, planned.stderr).toBe(0);
    const verified = await h.run(['show', 'p.json', '--format', 'markdown'], { env: NO_API });
    expect(verified.stderr).toBe('');
    const withoutKey = await h.run(['show', 'p.json', '--format', 'markdown'], { env: { ...NO_API, DRIFTLESS_FINGERPRINT_KEY: undefined as unknown as string } });
    expect(withoutKey.code).toBe(0);
    expect(withoutKey.stdout).toBe(planned.stdout);
    expect(withoutKey.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(withoutKey.stderr).toContain('p.json is shown unverified: it was sealed with another key');
    // An edit is still refused, whatever the key.
    writeFileSync(join(h.dir, 'edited.json'), readFileSync(join(h.dir, 'p.json'), 'utf8').replace('"cpu": 500', '"cpu": 4000'));
    const edited = await h.run(['show', 'edited.json'], { env: NO_API });
    expect(edited.code).toBe(1);
    // A key set but empty is named as such (as apply does), never taken for a damaged file.
    const emptyKey = await h.run(['show', 'p.json'], { env: { ...NO_API, DRIFTLESS_FINGERPRINT_KEY: '' } });
    expect(emptyKey.code).toBe(1);
    expect(emptyKey.stdout).toBe('');
    expect(emptyKey.stderr).toContain('DRIFTLESS_FINGERPRINT_KEY is set but empty');
    expect(emptyKey.stderr).not.toContain('damaged');
  });

  it('is a usage error without a plan file, or with an unknown format', async () => {
    h = await startHarness();
    const none = await h.run(['show'], { env: NO_API });
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
    const bad = await h.run(['show', 'p.json', '--format', 'github'], { env: NO_API });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--format');
  });
});

describe('the JSON plan, as Terraform tools read it', () => {
  it('carries version, timestamp, mode, provider_name, after_unknown, deploys apart from actions, and a patch that turns before into after', async () => {
    await harnessWithUpdates();
    const started = Date.now();
    const r = await h.run(['plan', 'm', '--json'], { env: { ...SECRET_ENV, E2E_API_KEY: 'rotated-secret-value' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('rotated-secret-value');
    expect(r.stdout).not.toContain(SECRET);
    const doc = JSON.parse(r.stdout);
    expect(doc.driftless_version).toBe(version);
    expect(doc.errored).toBe(false);
    expect(Math.abs(Date.parse(doc.timestamp) - started)).toBeLessThan(60_000);
    const rc = (suffix: string) => doc.resource_changes.find((c: any) => c.address.endsWith(suffix));
    for (const c of doc.resource_changes) {
      expect(c).toMatchObject({ mode: 'managed', provider_name: 'driftless/infrastructure-api' });
      for (const a of c.change.actions) expect(['create', 'update', 'delete', 'no-op']).toContain(a);
    }
    // Deploys: in change.deploy, counted in summary.deploy, never an action.
    const deploying = doc.resource_changes.filter((c: any) => c.change.deploy);
    expect(deploying.length).toBe(doc.summary.deploy);
    expect(deploying.length).toBeGreaterThan(0);
    // A creation: the API assigns its id.
    const worker = rc('/container.worker');
    expect(worker.change.actions).toEqual(['create']);
    expect(worker.change.after_unknown).toEqual({ id: true });

    // The update of api: its patch, applied by fast-json-patch to before, gives the manifest's values.
    const api = rc('/application.api');
    expect(api.change.actions).toEqual(['update']);
    expect(api.change.after_unknown).toEqual({});
    expect(api.change.before.cpu).toBe(250);
    const patched = jsonPatch.applyPatch(structuredClone(api.change.before), api.change.patch, true, false).newDocument;
    expect(patched.cpu).toBe(500); // appManifest({ cpu: 500 })
    expect(patched).toEqual({ ...api.change.before, cpu: 500 });
    expect(api.change.patch).toEqual([{ op: 'replace', path: '/cpu', value: 500 }]);

    const logLevel = rc('project.e2e/variable.LOG_LEVEL');
    const logPatched = jsonPatch.applyPatch(structuredClone(logLevel.change.before), logLevel.change.patch, true, false).newDocument;
    expect(logPatched.value).toBe('debug');
    expect(logPatched).toEqual(logLevel.change.after);

    // The rotated secret: changed, in the patch, its value masked (null) like before/after.
    const secret = rc('/variable.API_KEY');
    expect(secret.change.actions).toEqual(['update']);
    expect(secret.change.after_sensitive).toEqual({ value: true });
    const secretOps = secret.change.patch.filter((o: any) => o.path === '/value');
    expect(secretOps).toHaveLength(1);
    expect(secretOps[0].value).toBeNull();
  });
});
