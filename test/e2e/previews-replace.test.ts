/**
 * `preview up --allow-replace` and `--allow-data-loss`: the flags the refusal of a blocked preview
 * plan names exist on `preview up` (it said to re-run with --allow-replace, which preview up did not
 * take). A declaration moved to another cluster replaces the preview only with the flag, and the
 * URLs printed are those of the new environment. End to end, over HTTP against the emulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';
import { previewManifest } from '../support/preview-manifest.js';

let h: Harness;

const ON_STAGING = previewManifest({ previews: { allowDataLoss: false } });
// The previews' cluster only (staging stays on staging-cluster).
const ON_PRODUCTION = ON_STAGING.replace('      name: "pr-{number}"\n      cluster: staging-cluster', '      name: "pr-{number}"\n      cluster: production-cluster');

const envNamed = (name: string) => Object.values(h.emu.state.environments).find((e) => e.name === name);
const clusterNamed = (name: string) => Object.values(h.emu.state.clusters).find((c) => c.name === name)!;

beforeAll(async () => {
  expect(ON_PRODUCTION).not.toBe(ON_STAGING);
  h = await startHarness({ refreshCache: false });
  h.write({ 'staging/shop.yaml': ON_STAGING, 'production/shop.yaml': ON_PRODUCTION });
  const applied = await h.run(['apply', 'staging', '--auto-approve', ...FAST]);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  const up = await h.run(['preview', 'up', 'staging', '--project', 'shop', '--number', '3', ...FAST]);
  expect(up.code, up.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe('preview up of a preview that must be replaced', () => {
  it('is blocked without the flags, which the refusal names and preview up takes', async () => {
    const before = envNamed('pr-3')!;
    const r = await h.run(['preview', 'up', 'production', '--project', 'shop', '--number', '3', ...FAST]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain('--allow-replace');
    expect(r.stderr).toContain('--allow-data-loss');
    expect(envNamed('pr-3')!.id).toBe(before.id);
    // Only --allow-replace: the database (no allow_data_loss in the declaration) still blocks it.
    const half = await h.run(['preview', 'up', 'production', '--project', 'shop', '--number', '3', '--allow-replace', ...FAST]);
    expect(half.code, half.stdout + half.stderr).toBe(1);
    expect(envNamed('pr-3')!.id).toBe(before.id);
  });

  it('with --allow-replace --allow-data-loss: replaced on the new cluster, the new environment\'s URLs printed', async () => {
    const before = envNamed('pr-3')!;
    const r = await h.run(['preview', 'up', 'production', '--project', 'shop', '--number', '3', '--allow-replace', '--allow-data-loss', '--format', 'json', ...FAST]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const after = envNamed('pr-3')!;
    expect(after.id).not.toBe(before.id);
    expect(after.cluster_id).toBe(clusterNamed('production-cluster').id);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ environment: 'pr-3' });
    const links: any = await (await fetch(`${h.emu.url}/environment/${after.id}/link`, { headers: { authorization: `Token ${h.emu.tokens.ADMIN}` } })).json();
    expect(out.urls.map((u: any) => u.url).sort()).toEqual(links.results.map((l: any) => l.url).sort());
    expect(out.urls.length).toBeGreaterThan(0);
  });

  it('the flags are up\'s only', async () => {
    const r = await h.run(['preview', 'down', 'production', '--project', 'shop', '--number', '3', '--allow-replace']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--allow-replace is not an option of preview down');
    expect(envNamed('pr-3')).toBeDefined();
  });
});
