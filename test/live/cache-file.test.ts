import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { CACHE_FILE_NAME, cacheFilePath, readCacheFile, writeCacheFile } from '../../src/live/cache-file.js';
import type { LiveSnapshot } from '../../src/live/refresh.js';
import { responsesPieces } from '../../src/live/cache-bytes.js';
import { sealCache } from '../../src/live/cache-seal.js';

const KEY = { key: 'k'.repeat(32), source: 'env' as const };
const identity = { apiUrl: 'http://127.0.0.1:8080', driftlessVersion: '1.2.3', keyOf: () => KEY };
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

  it('is refused when edited and re-checksummed without the key, or sealed with another key', () => {
    const dir = tempDir();
    writeCacheFile(dir, snapshot(), identity);
    const doc = JSON.parse(readFileSync(cacheFilePath(dir), 'utf8'));
    // What someone with write access does: rename a record, recompute the unkeyed sha256.
    doc.payload.responses['/organization/org-1/project'].results[3].name = 'renamed';
    const body = JSON.stringify(doc.payload);
    doc.checksum = `sha256:${createHash('sha256').update(body).digest('hex')}`;
    writeFileSync(cacheFilePath(dir), JSON.stringify(doc));
    expect(readCacheFile(dir, identity)).toEqual({ unusable: `the cache ${cacheFilePath(dir)} fails its seal: it was edited after driftless wrote it` });
    writeCacheFile(dir, snapshot(), identity);
    expect(readCacheFile(dir, { ...identity, keyOf: () => ({ key: 'another', source: 'env' }) })).toEqual({
      unusable: `the cache ${cacheFilePath(dir)} was sealed with another key (DRIFTLESS_FINGERPRINT_KEY differs from the run that wrote it)`,
    });
    delete doc.seal;
    doc.payload.responses['/organization/org-1/project'].results[3].name = 'project 0 3';
    doc.checksum = `sha256:${createHash('sha256').update(JSON.stringify(doc.payload)).digest('hex')}`;
    writeFileSync(cacheFilePath(dir), JSON.stringify(doc));
    expect(readCacheFile(dir, identity)).toEqual({ unusable: `the cache ${cacheFilePath(dir)} is not sealed` });
  });

  it('is refused, not a crash, when nested deeper than the limit', () => {
    const dir = tempDir();
    writeFileSync(cacheFilePath(dir), `${'['.repeat(200_000)}${']'.repeat(200_000)}`);
    expect(readCacheFile(dir, identity)).toEqual({ unusable: `the cache ${cacheFilePath(dir)} is corrupt or partial (nested deeper than 128 levels (at character 129))` });
  });
});

describe('the cache file read and written as bytes (issue 21)', () => {
  const bigger = (): LiveSnapshot => ({
    ...snapshot(),
    responses: {
      '/organization/org-1/project': { results: [{ id: 'p1', name: 'projé "one"', note: 'a\u2028b\\c' }] },
      '/project/p1/environment': { results: [{ id: 'e1', name: 'prod' }] },
      '/environment/e1/service': { results: [{ id: 's1', name: 'api', ports: [{ n: 1.5e-7, big: 1e21 }] }] },
      '/environment/e1/service/status': null,
      '/variable?environment_id=e1': { results: [] },
    },
    freshness: { seen: [], fullReadAt: '2026-11-25T16:00:00.000Z', verifiedThrough: '/environment/e1/service' },
  });

  it('writes, after a read, the bytes JSON.stringify would write, with answers kept, replaced, added and dropped', () => {
    const a = tempDir();
    const b = tempDir();
    writeCacheFile(a, bigger(), identity);
    const read = readCacheFile(a, identity) as LiveSnapshot;
    expect(read).toEqual(bigger());
    // What the next snapshot holds: most answers the very objects read, one answer replaced, one
    // dropped, one added, in another order.
    const { ['/project/p1/environment']: _dropped, ...kept } = read.responses;
    const next: LiveSnapshot = { ...read, readAt: '2026-11-25T17:00:00.000Z', responses: { '/new': { results: [1] }, ...kept, '/environment/e1/service': { results: [] } } };
    writeCacheFile(a, next, identity);
    // The same snapshot with no object from a read: everything stringified.
    writeCacheFile(b, structuredClone(next), identity);
    expect(readFileSync(cacheFilePath(a), 'utf8')).toBe(readFileSync(cacheFilePath(b), 'utf8'));
    expect(readCacheFile(a, identity)).toEqual(next);
  });

  it('still reads a file whose payload was reformatted without a change (the checksum and seal are of its JSON)', () => {
    const dir = tempDir();
    writeCacheFile(dir, bigger(), identity);
    const doc = JSON.parse(readFileSync(cacheFilePath(dir), 'utf8'));
    writeFileSync(cacheFilePath(dir), JSON.stringify(doc, null, 2));
    expect(readCacheFile(dir, identity)).toEqual(bigger());
  });

  it('refuses a file whose bytes were edited with the checksum recomputed over them, and one cut after its header', () => {
    const dir = tempDir();
    writeCacheFile(dir, bigger(), identity);
    const whole = readFileSync(cacheFilePath(dir), 'utf8');
    const at = whole.indexOf('"payload":') + '"payload":'.length;
    const payload = whole.slice(at, -2).replace('"api"', '"web"');
    const checksum = `sha256:${createHash('sha256').update(payload).digest('hex')}`;
    writeFileSync(cacheFilePath(dir), `${whole.slice(0, at).replace(/sha256:[0-9a-f]{64}/, checksum)}${payload}}\n`);
    expect(readCacheFile(dir, identity)).toEqual({ unusable: `the cache ${cacheFilePath(dir)} fails its seal: it was edited after driftless wrote it` });
    writeFileSync(cacheFilePath(dir), `${whole.slice(0, at)}}\n`);
    expect(readCacheFile(dir, identity)).toEqual({ unusable: `the cache ${cacheFilePath(dir)} is corrupt or partial (not JSON)` });
  });
});

describe('the cache file: every field checked, the bytes path really taken', () => {
  /** A payload written as driftless would (checksum and seal right), with `change` applied first. */
  const writeWith = (dir: string, change: (p: Record<string, unknown>) => void) => {
    writeCacheFile(dir, snapshot(), identity);
    const doc = JSON.parse(readFileSync(cacheFilePath(dir), 'utf8')) as { payload: Record<string, unknown> };
    change(doc.payload);
    const text = JSON.stringify(doc.payload);
    writeFileSync(cacheFilePath(dir), `{"checksum":"sha256:${createHash('sha256').update(text).digest('hex')}","seal":${JSON.stringify(sealCache(text, KEY))},"payload":${text}}\n`);
  };

  it('a file driftless wrote is read from its bytes: its answers are written back as they are; a reformatted one is not', () => {
    const dir = tempDir();
    writeCacheFile(dir, snapshot(), identity);
    const read = readCacheFile(dir, identity) as LiveSnapshot;
    expect(read).toEqual(snapshot());
    expect(responsesPieces(read.responses).some((p) => typeof p !== 'string')).toBe(true);
    writeFileSync(cacheFilePath(dir), JSON.stringify(JSON.parse(readFileSync(cacheFilePath(dir), 'utf8')), null, 1));
    const again = readCacheFile(dir, identity) as LiveSnapshot;
    expect(again).toEqual(snapshot());
    expect(responsesPieces(again.responses).every((p) => typeof p === 'string')).toBe(true);
  });

  it('refuses, naming what is wrong, a payload of another kind or format, or with a field missing or of the wrong type', () => {
    const dir = tempDir();
    const corrupt = (why: string) => ({ unusable: `the cache ${cacheFilePath(dir)} is corrupt or partial (${why})` });
    for (const [field, value] of [['kind', 'other'], ['format_version', 99]] as const) {
      writeWith(dir, (p) => (p[field] = value));
      expect((readCacheFile(dir, identity) as { unusable: string }).unusable, field).toMatch(/^the cache .* is corrupt or partial \(not a driftless cache of format \d+\)$/);
    }
    for (const [field, value] of [['driftless_version', 1], ['api_url', null], ['organization_id', 7], ['read_at', 5], ['read_at', 'yesterday'], ['responses', null], ['responses', 'x']] as const) {
      writeWith(dir, (p) => (p[field] = value));
      expect(readCacheFile(dir, identity), `${field}: ${String(value)}`).toEqual(corrupt('a field is missing'));
    }
    for (const cursor of [{ timestamp: 1, ids: [] }, { timestamp: 't' }, 'x', 0]) {
      writeWith(dir, (p) => (p.cursor = cursor));
      expect(readCacheFile(dir, identity), JSON.stringify(cursor)).toEqual(corrupt('its event cursor is unreadable'));
    }
    writeWith(dir, (p) => (p.cursor = null));
    expect((readCacheFile(dir, identity) as LiveSnapshot).cursor).toBeNull();
    writeWith(dir, (p) => (p.freshness = 'fresh'));
    expect(readCacheFile(dir, identity)).toEqual(corrupt('its freshness record is unreadable (not an object)'));
  });

  it('says why it cannot read the file, and that a cache without a key cannot be checked', () => {
    const dir = tempDir();
    // A directory where the file should be: not "no cache yet".
    mkdirSync(cacheFilePath(dir));
    expect(readCacheFile(dir, identity)).toEqual({ unusable: `the cache ${cacheFilePath(dir)} cannot be read (EISDIR)` });
    const other = tempDir();
    writeCacheFile(other, snapshot(), identity);
    expect(readCacheFile(other, { ...identity, keyOf: () => undefined })).toEqual({ unusable: `the cache ${cacheFilePath(other)} cannot be checked without a fingerprint key` });
  });

  it('without a key to seal it, writes nothing, not even a temporary file', () => {
    const dir = tempDir();
    expect(() => writeCacheFile(dir, snapshot(), { ...identity, keyOf: () => undefined })).toThrow(expect.objectContaining({ code: 'ENOKEY', message: 'no fingerprint key to seal the cache with' }));
    expect(readdirSync(dir)).toEqual([]);
  });
});
