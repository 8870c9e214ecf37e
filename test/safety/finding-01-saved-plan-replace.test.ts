/**
 * Finding 1 with a saved plan: a plan file made with --allow-replace does not allow the
 * replacement by itself; the `apply PLANFILE` command line must say --allow-replace too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';
import { previewManifest, settledObjects, ownedObjects, destroyedCount, disappeared } from './guards-support.js';

let h: Harness;
afterEach(async () => h?.close());

describe('finding 1: a saved plan that replaces an environment', () => {
  it('finding 1: apply PLANFILE replaces only with its own --allow-replace, whatever the plan file was made with', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': previewManifest('staging-cluster') });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST])).code).toBe(0);
    const before = ownedObjects(h.emu);
    h.write({ 'm/main.yaml': previewManifest('production-cluster') });

    const saved = await h.run(['plan', 'm', '--allow-replace', '--out', 'replace.plan']);
    expect(saved.code).toBe(0);
    expect(saved.stdout).toContain('Plan: 4 to add, 0 to change, 4 to destroy, 1 to deploy.');

    const refused = await h.run(['apply', 'replace.plan', ...FAST]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('project.shop/environment.preview: the plan replaces it and --allow-replace was not given');
    // One error for the one cause, not one per object in the environment.
    expect(refused.stderr.match(/^error\[/gm)).toHaveLength(1);
    expect(await settledObjects(h.emu)).toEqual(before);

    const done = await h.run(['apply', 'replace.plan', '--allow-replace', ...FAST]);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(destroyedCount(done.stdout)).toBe(disappeared(before, await settledObjects(h.emu)).length);
  });
});
