/**
 * Environments named like a project's previews (`previews.name`) belong to `driftless preview`:
 * `plan`, `apply` and `drift` never change, delete or list them, even under
 * `prune: {environments: true}`, and say on one line how many they left. Another undeclared
 * environment is still pruned. End to end, over HTTP against the emulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';
import { previewManifest } from '../support/preview-manifest.js';

let h: Harness;

/** api alone, prune: {environments: true}, previews pr-{number}, staging. */
const MANIFEST = previewManifest({ services: [], pruneEnvironments: true });

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(h.emu.url + path, { method, headers: { authorization: `Token ${h.emu.tokens.ADMIN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return text ? JSON.parse(text) : undefined;
}

beforeAll(async () => {
  h = await startHarness();
  h.write({ 'infra/shop.yaml': MANIFEST });
  const applied = await h.run(['apply', 'infra', '--auto-approve', ...FAST]);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  // Two previews and a hand-made environment, with a service each, made outside the manifest.
  const project = Object.values(h.emu.state.projects).find((p) => p.name === 'shop')!;
  for (const name of ['pr-7', 'pr-12', 'scratch']) {
    const env = await api('POST', `/project/${project.id}/environment`, { name, mode: 'DEVELOPMENT' });
    await api('POST', `/environment/${env.id}/application`, { name: 'api', git_repository: { url: 'https://github.com/acme/api.git', branch: `b-${name}` }, ports: [] });
  }
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe('preview environments in a plan of the whole manifest', () => {
  it('plan prunes the hand-made environment, leaves the previews and counts them on one line', async () => {
    const r = await h.run(['plan', 'infra']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('project.shop/environment.scratch');
    expect(r.stdout).not.toMatch(/environment\.pr-(7|12)/);
    expect(r.stdout).toContain('2 preview environments (pr-{number}) left to `driftless preview`.');
    const json = JSON.parse((await h.run(['plan', 'infra', '--json'])).stdout);
    expect(json.resource_changes.map((c: any) => c.address).filter((a: string) => a.includes('pr-'))).toEqual([]);
    expect(json.previews).toEqual([{ project: 'project.shop', pattern: 'pr-{number}', count: 2 }]);
  });

  it('apply deletes only the hand-made environment; drift is then in sync and counts the previews', async () => {
    const r = await h.run(['apply', 'infra', '--auto-approve', ...FAST]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const names = Object.values(h.emu.state.environments).map((e) => e.name).sort();
    expect(names).toEqual(['pr-12', 'pr-7', 'staging']);
    const d = await h.run(['drift', 'infra']);
    expect(d.code, d.stdout + d.stderr).toBe(0);
    expect(d.stdout).toContain('2 preview environments (pr-{number}) left to `driftless preview`.');
    const md = await h.run(['plan', 'infra', '--format', 'markdown']);
    expect(md.stdout).toContain('2 preview environments (pr-{number}) left to');
  });
});
