/**
 * `protect: true` holds for a preview's services as for any other: `preview down` and `preview
 * prune` never delete a preview holding a protected service, whatever its declaration's
 * `allow_data_loss` (protection is "never deleted, whatever the flags"). Protected means declared
 * so by the template (or the previews' overrides) or carrying the live mark an apply recorded; the
 * way out is `protect: false` and a `preview up` that clears the mark. End to end, over HTTP
 * against the emulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';
import { previewManifest } from '../support/preview-manifest.js';

let h: Harness;

/** pg, api and web; the previews may lose their databases; pg protected when `protect` is given. */
const manifest = (o: { protect?: boolean; overridePg?: string } = {}) => {
  const m = previewManifest({ previews: { allowDataLoss: true, ...(o.overridePg ? { serviceOverrides: [`pg: ${o.overridePg}`] } : {}) } });
  return o.protect === undefined ? m : m.replace('            mode: CONTAINER\n', `            mode: CONTAINER\n            protect: ${o.protect}\n`);
};

const envNamed = (name: string) => Object.values(h.emu.state.environments).find((e) => e.name === name);
const previewsLeft = () => Object.values(h.emu.state.environments).map((e) => e.name).filter((n) => n.startsWith('pr-')).sort();

beforeAll(async () => {
  h = await startHarness({ refreshCache: false });
  h.write({ 'plain/shop.yaml': manifest(), 'protected/shop.yaml': manifest({ protect: true }), 'unprotected/shop.yaml': manifest({ overridePg: '{ protect: false }' }) });
  const applied = await h.run(['apply', 'plain', '--auto-approve', ...FAST]);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe('a protected service keeps its preview', () => {
  it('declared protect: true in the template: down is blocked, names the service, deletes nothing', async () => {
    const up = await h.run(['preview', 'up', 'protected', '--project', 'shop', '--number', '1', ...FAST]);
    expect(up.code, up.stderr).toBe(0);
    const r = await h.run(['preview', 'down', 'protected', '--project', 'shop', '--number', '1', ...FAST]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain('error[preview.protected]: preview pr-1 was not deleted: its database `pg` is protected');
    expect(r.stderr).not.toContain('Error:');
    expect(envNamed('pr-1')).toBeDefined();
  });

  it('the live mark alone protects: a manifest that no longer says protect still may not delete it', async () => {
    // pr-1's pg carries the mark the protected up recorded; `plain` says nothing about protect.
    const r = await h.run(['preview', 'down', 'plain', '--project', 'shop', '--number', '1', ...FAST]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain('preview pr-1 was not deleted: its database `pg` is protected');
    expect(envNamed('pr-1')).toBeDefined();
  });

  it('the declaration alone protects: a preview made before protect: true was written is kept too', async () => {
    const up = await h.run(['preview', 'up', 'plain', '--project', 'shop', '--number', '2', ...FAST]);
    expect(up.code, up.stderr).toBe(0);
    const r = await h.run(['preview', 'down', 'protected', '--project', 'shop', '--number', '2', ...FAST]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain('preview pr-2 was not deleted: its database `pg` is protected');
    expect(envNamed('pr-2')).toBeDefined();
  });

  it('prune blocks the protected previews, deletes the others, and exits 1', async () => {
    const up = await h.run(['preview', 'up', 'plain', '--project', 'shop', '--number', '3', ...FAST]);
    expect(up.code, up.stderr).toBe(0);
    // Under `plain`, pr-1 is protected by its live mark only: pr-2 and pr-3 carry none.
    const r = await h.run(['preview', 'prune', 'plain', '--keep', '', '--format', 'json', ...FAST]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ deleted: ['pr-2', 'pr-3'], blocked: ['pr-1'] });
    expect(previewsLeft()).toEqual(['pr-1']);
  });

  it('protect: false and an up clear the mark; then down deletes the preview and its database', async () => {
    const up = await h.run(['preview', 'up', 'unprotected', '--project', 'shop', '--number', '1', ...FAST]);
    expect(up.code, up.stderr).toBe(0);
    const r = await h.run(['preview', 'down', 'unprotected', '--project', 'shop', '--number', '1', ...FAST]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(previewsLeft()).toEqual([]);
  });
});
