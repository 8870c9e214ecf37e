import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CACHE_FILE_NAME, cacheFilePath, readCacheFile, writeCacheFile } from '../../src/live/cache-file.js';
import type { LiveSnapshot } from '../../src/live/refresh.js';

const identity = { apiUrl: 'http://127.0.0.1:8080', driftlessVersion: '1.2.3' };
const snapshot = (n = 0): LiveSnapshot => ({
  organizationId: 'org-1',
  cursor: { timestamp: '2026-11-25T16:00:00.000000001Z', ids: ['e1'] },
  readAt: '2026-11-25T16:00:01.000Z',
  responses: { '/organization/org-1/project': { results: Array.from({ length: 50 }, (_, i) => ({ id: `p${n}-${i}`, name: `project ${n} ${i}` })) } },
});

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'driftless-cache-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the cache file', () => {
  it('reads back what was written, in a directory it creates', () => {
    const dir = join(tempDir(), 'nested', 'cache');
    writeCacheFile(dir, snapshot(), identity);
    expect(readCacheFile(dir, identity)).toEqual(snapshot());
    expect(readdirSync(dir)).toEqual([CACHE_FILE_NAME]);
  });

  it('says there is no cache yet in an empty directory', () => {
    const dir = tempDir();
    expect(readCacheFile(dir, identity)).toEqual({ unusable: `no cache in ${dir} yet` });
  });

  it('is refused for another driftless version or another API URL', () => {
    const dir = tempDir();
    writeCacheFile(dir, snapshot(), identity);
    expect(readCacheFile(dir, { ...identity, driftlessVersion: '1.2.4' })).toEqual({ unusable: 'the cache was written by driftless 1.2.3, this is 1.2.4' });
    expect(readCacheFile(dir, { ...identity, apiUrl: 'https://api.example' })).toEqual({ unusable: 'the cache is of another API URL (http://127.0.0.1:8080)' });
  });

  it('is refused when cut short, edited, or not a cache at all', () => {
    const dir = tempDir();
    writeCacheFile(dir, snapshot(), identity);
    const whole = readFileSync(cacheFilePath(dir), 'utf8');
    writeFileSync(cacheFilePath(dir), whole.slice(0, Math.floor(whole.length / 2)));
    expect(readCacheFile(dir, identity)).toEqual({ unusable: `the cache ${cacheFilePath(dir)} is corrupt or partial (not JSON)` });
    writeFileSync(cacheFilePath(dir), whole.replace('project 0 7', 'project 0 8'));
    expect(readCacheFile(dir, identity)).toMatchObject({ unusable: expect.stringContaining('its checksum does not match its content') });
    writeFileSync(cacheFilePath(dir), '{"kind":"driftless-plan"}');
    expect(readCacheFile(dir, identity)).toMatchObject({ unusable: expect.stringContaining('no checksum or content') });
    writeFileSync(cacheFilePath(dir), '');
    expect(readCacheFile(dir, identity)).toMatchObject({ unusable: expect.stringContaining('corrupt or partial') });
  });
});
