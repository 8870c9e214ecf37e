/**
 * An apply's own writes and the refresh cache it leaves, with an audit log that shows events late
 * (`serve --audit-delay`): the cache an apply writes is the state it read, before its writes, so
 * the next run must not plan them all over again while the log has not shown them yet (issue 18:
 * a late log costs at most a bounded delay, never a wrong plan). The rotation is turned off
 * (--verify-requests 0): what is checked is that the apply itself says what it changed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';
import { SECRET_ENV, appManifest } from './fixtures.js';
import { previewManifest } from '../support/preview-manifest.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const env = { ...SECRET_ENV, DRIFTLESS_CACHE_DIR: '' };
const CACHED = ['--cache', 'cache', '--verify-requests', '0'];

function summaryOf(stdout: string): unknown {
  return JSON.parse(stdout).summary;
}

function changesOf(stdout: string): unknown {
  const p = JSON.parse(stdout);
  return { summary: p.summary, resource_changes: p.resource_changes };
}

describe('an apply with a late audit log (events shown a minute after their write)', () => {
  it('the next cached plan is the full one: the apply marks what it wrote as to be read again', async () => {
    h = await startHarness({ refreshCache: false, auditDelayMs: 60_000 });
    h.write({ 'm/main.yaml': appManifest() });
    const created = await h.run(['apply', 'm', '--auto-approve', ...FAST, ...CACHED], { env });
    expect(created.code, created.stderr).toBe(0);
    const afterCreate = await h.run(['plan', 'm', '--format', 'json', ...CACHED], { env });
    expect(afterCreate.code, afterCreate.stderr).toBe(0);
    expect(summaryOf(afterCreate.stdout)).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0 });

    h.write({ 'm/main.yaml': appManifest({ cpu: 500, logLevel: 'warn' }) });
    const changed = await h.run(['apply', 'm', '--auto-approve', ...FAST, ...CACHED], { env });
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toMatch(/Apply complete! Resources: 0 added, 2 changed/);
    const warm = await h.run(['plan', 'm', '--format', 'json', ...CACHED], { env });
    const full = await h.run(['plan', 'm', '--format', 'json'], { env });
    expect(warm.code, warm.stderr).toBe(0);
    expect(changesOf(warm.stdout)).toEqual(changesOf(full.stdout));
    expect(summaryOf(warm.stdout)).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0 });
    // Not a full read: the lists the apply wrote to are read again, nothing is said to be missing.
    expect(warm.stderr).not.toMatch(/^Full read of the live state/m);
  });

  it('preview up twice: the second finds its preview up to date, not to be created again', async () => {
    h = await startHarness({ refreshCache: false, auditDelayMs: 60_000 });
    h.write({ 'infra/shop.yaml': previewManifest({ services: ['web'] }) });
    const applied = await h.run(['apply', 'infra', '--auto-approve', ...FAST, ...CACHED], { env });
    expect(applied.code, applied.stderr).toBe(0);
    const up = ['preview', 'up', 'infra', '--project', 'shop', '--number', '7', ...FAST, ...CACHED];
    const first = await h.run(up, { env });
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const second = await h.run(up, { env });
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toMatch(/Preview pr-7 is up to date: nothing to change or deploy\./);
  });
});
