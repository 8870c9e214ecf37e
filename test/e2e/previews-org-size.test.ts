/**
 * `preview up` costs requests in proportion to the preview, not to the organization: the plan of a
 * new preview, and of a second `up` with a new commit, reads the same number of lists in a small
 * organization and in one with many more environments and services (in the preview's project and
 * in another), without the refresh cache and with it. End to end, over HTTP against the emulator.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';
import { previewManifest } from '../support/preview-manifest.js';

let h: Harness;
const caches: string[] = [];

const SHA = (n: number) => String(n).repeat(7).slice(0, 7) + 'abcdef';

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(h.emu.url + path, { method, headers: { authorization: `Token ${h.emu.tokens.ADMIN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  expect(r.status, `${method} ${path}`).toBeLessThan(300);
  const text = await r.text();
  return text ? JSON.parse(text) : undefined;
}

/** The plan's reads of a `preview up` run ("Live state read with N API requests"). */
async function upReads(number: number, commit: number, extra: string[] = []): Promise<number> {
  const r = await h.run(['preview', 'up', 'infra', '--project', 'shop', '--number', String(number), '--set', `api.git_commit_id=${SHA(commit)}`, ...extra, ...FAST]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return Number(/Live state read with (\d+) API requests?/.exec(r.stdout)![1]);
}

/** A new preview, then a second up of it with a new commit: the two plans' reads. */
async function lifeOf(number: number, extra: string[] = []): Promise<[number, number]> {
  return [await upReads(number, 1, extra), await upReads(number, 2, extra)];
}

function cacheDir(): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'driftless-preview-cache-'));
  caches.push(dir);
  return ['--cache', dir];
}

/** Ten environments of three services each, in shop (not named like previews) and in another project. */
async function growTheOrganization(): Promise<void> {
  const shop = Object.values(h.emu.state.projects).find((p) => p.name === 'shop')!;
  const other = await api('POST', `/organization/${h.emu.organizationId}/project`, { name: 'other' });
  for (const [project, prefix] of [[shop.id, 'qa'], [other.id, 'team']] as const) {
    for (let i = 0; i < 5; i++) {
      const env = await api('POST', `/project/${project}/environment`, { name: `${prefix}-${i}`, mode: 'STAGING' });
      for (const name of ['a', 'b', 'c']) {
        await api('POST', `/environment/${env.id}/application`, { name, git_repository: { url: `https://github.com/acme/${name}.git`, branch: 'main' }, ports: [] });
      }
    }
  }
}

beforeAll(async () => {
  h = await startHarness({ refreshCache: false });
  h.write({ 'infra/main.yaml': previewManifest({ previews: { allowDataLoss: true } }) });
  const applied = await h.run(['apply', 'infra', '--auto-approve', ...FAST]);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await h?.close();
  for (const dir of caches) rmSync(dir, { recursive: true, force: true });
});

describe('the requests of preview up follow the preview, not the organization', () => {
  it('the same reads in a small organization and in one with ten more environments and thirty services, with and without the cache', async () => {
    const small = { cold: await lifeOf(1), cached: await lifeOf(2, cacheDir()) };
    await growTheOrganization();
    expect(Object.keys(h.emu.state.environments).length).toBeGreaterThanOrEqual(13);
    const large = { cold: await lifeOf(3), cached: await lifeOf(4, cacheDir()) };
    expect(large).toEqual(small);
    // And few: the organization's lists and the preview's own, not one per service of it.
    for (const n of [...small.cold, ...small.cached]) expect(n).toBeLessThanOrEqual(12);
  }, 60_000);
});
