/**
 * `plan --out FILE` then `apply FILE`: exactly the saved plan, or a refusal before any write.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';
import { SECRET, SECRET_ENV, appManifest, servicesByName, variablesByKey } from './fixtures.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const lastLine = (s: string) => s.trimEnd().split('\n').pop();

async function setUp(): Promise<void> {
  h = await startHarness();
  h.write({ 'm/main.yaml': appManifest() });
  expect((await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SECRET_ENV })).code).toBe(0);
  h.write({ 'm/main.yaml': appManifest({ cpu: 500 }) });
}

/** An edit made in the console between plan and apply: a PUT through the API. */
async function editInConsole(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${h.emu.url}${path}`, {
    method: 'PUT',
    headers: { Authorization: `Token ${h.env.DRIFTLESS_API_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

describe('saved plans', () => {
  it('applies exactly the saved plan, without asking, and holds no secret value', async () => {
    await setUp();
    const p = await h.run(['plan', 'm', '--out', 'change.plan'], { env: SECRET_ENV });
    expect(p.code).toBe(0);
    // The hint is on stderr: stdout is the plan alone (what `show change.plan` prints).
    expect(p.stderr).toContain('driftless apply change.plan');
    expect(readFileSync(join(h.dir, 'change.plan'), 'utf8')).not.toContain(SECRET);
    const r = await h.run(['apply', 'change.plan', 'm', ...FAST], { env: SECRET_ENV });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Applying the saved plan change.plan, unchanged since it was made. Plan: 0 to add, 1 to change, 0 to destroy, 1 to deploy.');
    expect(lastLine(r.stdout)).toBe('Apply complete! Resources: 0 added, 1 changed, 0 destroyed; 1 deployed.');
    expect(servicesByName(h).get('api')!.cpu).toBe(500);
  });

  it('re-reads the manifest the plan was made from when apply is given only the plan file', async () => {
    await setUp();
    expect((await h.run(['plan', 'm', '--out', 'change.plan'], { env: SECRET_ENV })).code).toBe(0);
    expect(JSON.parse(readFileSync(join(h.dir, 'change.plan'), 'utf8')).manifest_paths).toEqual(['m']);
    const r = await h.run(['apply', 'change.plan', ...FAST], { env: SECRET_ENV });
    expect(r.code).toBe(0);
    expect(lastLine(r.stdout)).toBe('Apply complete! Resources: 0 added, 1 changed, 0 destroyed; 1 deployed.');
    expect(servicesByName(h).get('api')!.cpu).toBe(500);
  });

  it('refuses a stale plan when a managed object was edited in the console since, naming it, and changes nothing', async () => {
    await setUp();
    expect((await h.run(['plan', 'm', '--out', 'change.plan'], { env: SECRET_ENV })).code).toBe(0);
    const variable = variablesByKey(h).get('FEATURE_FLAG')!;
    await editInConsole(`/variable/${variable.id}`, { key: 'FEATURE_FLAG', value: 'off' });
    const r = await h.run(['apply', 'change.plan', 'm', ...FAST], { env: SECRET_ENV });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is stale');
    expect(r.stderr).toContain('project.e2e/environment.dev/application.api/variable.FEATURE_FLAG: changed in the live organization since the plan was made');
    expect(r.stderr).toContain('Nothing was changed');
    expect(r.stderr).toContain('driftless plan --out change.plan');
    expect(servicesByName(h).get('api')!.cpu).toBe(250);
  });

  it('refuses a plan when a parent of what it changes was edited since', async () => {
    await setUp();
    expect((await h.run(['plan', 'm', '--out', 'change.plan'], { env: SECRET_ENV })).code).toBe(0);
    const project = Object.values(h.emu.state.projects)[0]!;
    await editInConsole(`/project/${project.id}`, { name: 'e2e', description: 'edited in the console' });
    const r = await h.run(['apply', 'change.plan', 'm', ...FAST], { env: SECRET_ENV });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('project.e2e: changed in the live organization since the plan was made');
    expect(servicesByName(h).get('api')!.cpu).toBe(250);
  });

  it('refuses when a secret re-read from the environment differs from the one planned', async () => {
    await setUp();
    expect((await h.run(['plan', 'm', '--out', 'change.plan'], { env: SECRET_ENV })).code).toBe(0);
    const r = await h.run(['apply', 'change.plan', 'm', ...FAST], { env: { E2E_API_KEY: 'another-value' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('application.api/variable.API_KEY: a secret value in the environment differs');
    expect(r.stderr).not.toContain('another-value');
    expect(servicesByName(h).get('api')!.cpu).toBe(250);
  });

  it('refuses a damaged plan file with a clear message', async () => {
    await setUp();
    expect((await h.run(['plan', 'm', '--out', 'change.plan'], { env: SECRET_ENV })).code).toBe(0);
    const text = readFileSync(join(h.dir, 'change.plan'), 'utf8').replace('"cpu"', '"memory"');
    h.write({ 'change.plan': text });
    const r = await h.run(['apply', 'change.plan', 'm', ...FAST], { env: SECRET_ENV });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('change.plan was edited after it was written: its content does not match its seal');
    expect(servicesByName(h).get('api')!.cpu).toBe(250);
  });
});
