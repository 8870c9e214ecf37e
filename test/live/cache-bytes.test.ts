/**
 * The cache file's bytes path (issue 21): the scan that finds each answer in the payload's bytes,
 * and the writer that puts a kept answer back as those bytes. The caller falls back to the text
 * path whenever the bytes path declines, so a file is always read right; what these tests hold is
 * that the bytes path itself is exact (the very bytes JSON.stringify writes) and really used.
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyOfAnswer, pieceBytes, responsesPieces, rememberAnswers, scanPayload, splitCacheBytes, writePieces, type Piece } from '../../src/live/cache-bytes.js';

const bytes = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
const text = (pieces: readonly Piece[]) => Buffer.concat(pieces.map((p) => Buffer.from(pieceBytes(p)))).toString('utf8');

/** Keys and strings with what a byte scanner could trip on: quotes, backslashes, brackets, commas, non-ASCII. */
const tricky = fc.string({ unit: fc.constantFrom('a', '"', '\\', '{', '}', '[', ']', ',', ':', ' ', 'é', '\u2028', '/', '?') , maxLength: 8 });
const answer = fc.oneof(
  fc.record({ results: fc.array(fc.record({ id: tricky, name: tricky, n: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })), ok: fc.boolean(), nested: fc.array(fc.array(tricky, { maxLength: 2 }), { maxLength: 2 }) }), { maxLength: 3 }) }),
  fc.array(tricky, { maxLength: 3 }),
  fc.constant(null),
);
const responses = fc.dictionary(tricky.map((k) => `/${k}`), answer, { maxKeys: 6 });

/** A payload as the cache file writes it: `responses` among other fields, some after it. */
const payloadOf = (r: Record<string, unknown>) => JSON.stringify({ organizationId: 'o', cursor: { timestamp: 't', ids: ['a"]'] }, readAt: 'x', responses: r, freshness: { seen: ['{'] } });

describe('scanPayload', () => {
  it('finds each answer of responses exactly, whatever its key and strings hold', () => {
    fc.assert(
      fc.property(responses, (r) => {
        const payload = payloadOf(r);
        const b = bytes(payload);
        const scan = scanPayload(b, 64)!;
        const found = scan.entries.map((e) => [Buffer.from(b.subarray(e.entryStart, e.valueStart - 1)).toString('utf8'), Buffer.from(b.subarray(e.valueStart, e.end)).toString('utf8')]);
        expect(found).toEqual(Object.entries(r).map(([k, v]) => [JSON.stringify(k), JSON.stringify(v)]));
      }),
      { numRuns: 150 },
    );
  });

  it('declines what is not canonical (whitespace between tokens) or nested deeper than the limit', () => {
    expect(scanPayload(bytes('{"responses":{"/a":{"x":"with spaces inside"}}}'), 8)?.entries).toHaveLength(1);
    for (const ws of [' ', '\t', '\n', '\r']) expect(scanPayload(bytes(`{"responses":{"/a":${ws}1}}`), 8)).toBeUndefined();
    expect(scanPayload(bytes('{"responses":{"/a":[[[1]]]}}'), 5)?.entries).toHaveLength(1);
    expect(scanPayload(bytes('{"responses":{"/a":[[[1]]]}}'), 4)).toBeUndefined();
  });

  it('takes only the top-level responses object, not a field of that name deeper or a string that says it', () => {
    const b = bytes('{"x":{"responses":{"/deep":1}},"s":"\\"responses\\":{","responses":{"/a":2,"/b":{"c":[3]}},"z":{"/no":4}}');
    const scan = scanPayload(b, 16)!;
    expect(scan.entries.map((e) => Buffer.from(b.subarray(e.entryStart, e.end)).toString())).toEqual(['"/a":2', '"/b":{"c":[3]}']);
    expect(scanPayload(bytes('{"responses":{}}'), 8)!.entries).toEqual([]);
  });
});

describe('responsesPieces after rememberAnswers', () => {
  it('writes exactly what JSON.stringify writes, the answers kept as they were read being their own bytes', () => {
    fc.assert(
      fc.property(responses, responses, fc.func(fc.constantFrom('keep', 'drop', 'replace')), (before, added, choose) => {
        const payload = payloadOf(before);
        const b = bytes(payload);
        const read = (JSON.parse(payload) as { responses: Record<string, unknown> }).responses;
        rememberAnswers(b, scanPayload(b, 64)!, read);
        const next: Record<string, unknown> = {};
        const kept: string[] = [];
        for (const [k, v] of Object.entries(read)) {
          const c = choose(k);
          if (c === 'keep') (next[k] = v, kept.push(k));
          else if (c === 'replace') next[k] = { replaced: k };
        }
        for (const [k, v] of Object.entries(added)) if (!(k in next)) next[k] = structuredClone(v);
        const pieces = responsesPieces(next);
        expect(text(pieces)).toBe(JSON.stringify(next));
        // Every kept object answer is written from the bytes it was read from, never stringified
        // again (under a key whose JSON is ASCII: others are compared as text, and stringified).
        const fromBytes = pieces.filter((p) => typeof p !== 'string').map((p) => text([p])).join(',');
        for (const k of kept) if (next[k] !== null && typeof next[k] === 'object' && /^[\x20-\x7e]*$/.test(JSON.stringify(k))) expect(fromBytes).toContain(`${JSON.stringify(k)}:${JSON.stringify(next[k])}`);
      }),
      { numRuns: 150 },
    );
  });

  it('joins consecutive kept answers into one run of bytes, and leaves out an answer JSON cannot write', () => {
    const payload = '{"responses":{"/a":{"x":1},"/b":[2],"/c":{"y":3}}}';
    const b = bytes(payload);
    const read = (JSON.parse(payload) as { responses: Record<string, unknown> }).responses;
    rememberAnswers(b, scanPayload(b, 8)!, read);
    const pieces = responsesPieces({ '/a': read['/a'], '/b': read['/b'], '/c': read['/c'], '/u': undefined });
    expect(pieces.map((p) => (typeof p === 'string' ? p : text([p])))).toEqual(['{', '"/a":{"x":1},"/b":[2],"/c":{"y":3}', '}']);
    const reordered = responsesPieces({ '/c': read['/c'], '/n': { z: 0 }, '/a': read['/a'] });
    expect(reordered.map((p) => (typeof p === 'string' ? p : text([p])))).toEqual(['{', '"/c":{"y":3}', ',"/n":{"z":0},', '"/a":{"x":1}', '}']);
    // An answer read under one key and written under another is stringified.
    expect(responsesPieces({ '/other': read['/a'] })).toEqual(['{"/other":{"x":1}}']);
    // Under another key of the same length too: the bytes would say the old key.
    expect(text(responsesPieces({ '/z': read['/a'] }))).toBe('{"/z":{"x":1}}');
    expect(text(responsesPieces({ '/a': read['/c'], '/c': read['/a'] }))).toBe('{"/a":{"y":3},"/c":{"x":1}}');
  });

  it('never runs the bytes of kept answers together over one left out, nor across two files', () => {
    const readOf = (payload: string) => {
      const b = bytes(payload);
      const read = (JSON.parse(payload) as { responses: Record<string, unknown> }).responses;
      rememberAnswers(b, scanPayload(b, 8)!, read);
      return read;
    };
    const one = readOf('{"responses":{"/a":{"x":1},"/b":{"y":3},"/c":{"z":5}}}');
    expect(text(responsesPieces({ '/a': one['/a'], '/c': one['/c'] }))).toBe('{"/a":{"x":1},"/c":{"z":5}}');
    // The same layout in another file: /b of the second file sits where /b of the first did.
    const two = readOf('{"responses":{"/a":{"x":9},"/b":{"y":2},"/c":{"z":7}}}');
    expect(text(responsesPieces({ '/a': one['/a'], '/b': two['/b'] }))).toBe('{"/a":{"x":1},"/b":{"y":2}}');
  });

  it('answers that are not objects (a number, a string, null) are remembered as nothing and written as text', () => {
    const payload = '{"responses":{"/n":5,"/s":"t","/z":null,"/a":{"x":1}}}';
    const b = bytes(payload);
    const read = (JSON.parse(payload) as { responses: Record<string, unknown> }).responses;
    rememberAnswers(b, scanPayload(b, 8)!, read);
    const pieces = responsesPieces(read);
    expect(text(pieces)).toBe(payload.slice('{"responses":'.length, -1));
    expect(pieces.filter((p) => typeof p !== 'string').map((p) => text([p]))).toEqual(['"/a":{"x":1}']);
  });

  it('copyOfAnswer: a fresh value equal to the answer, from its bytes or not', () => {
    const payload = '{"responses":{"/a":{"x":[1,{"y":"z"}]}}}';
    const b = bytes(payload);
    const read = (JSON.parse(payload) as { responses: Record<string, { x: unknown[] }> }).responses;
    rememberAnswers(b, scanPayload(b, 8)!, read);
    const copy = copyOfAnswer(read['/a']!);
    expect(copy).toEqual({ x: [1, { y: 'z' }] });
    expect(copy).not.toBe(read['/a']);
    copy.x.push(2);
    expect(read['/a']!.x).toHaveLength(2);
    const plain = { q: [1] };
    expect(copyOfAnswer(plain)).toEqual(plain);
    expect(copyOfAnswer(plain)).not.toBe(plain);
    expect(copyOfAnswer(null)).toBeNull();
  });
});

describe('splitCacheBytes and writePieces', () => {
  const header = `{"checksum":"sha256:${'a'.repeat(64)}","seal":{"key_id":"0f","mac":"${'b'.repeat(64)}"},"payload":`;

  it('splits a file as driftless writes it into checksum, seal and payload bytes', () => {
    const split = splitCacheBytes(bytes(`${header}{"responses":{}}}\n`))!;
    expect(split.checksum).toBe(`sha256:${'a'.repeat(64)}`);
    expect(split.seal).toEqual({ key_id: '0f', mac: 'b'.repeat(64) });
    expect(Buffer.from(split.payload).toString()).toBe('{"responses":{}}');
  });

  it('declines any other shape: another header, no final newline or brace, a file cut after its header', () => {
    for (const f of [`${header}{"responses":{}}}`, `${header}{\n`, `${header}{"responses":{}}]\n`, `${header.replace('"seal"', ' "seal"')}{}}\n`, `{"checksum":"sha256:${'a'.repeat(63)}","seal":{"key_id":"0f","mac":"b"},"payload":{}}\n`, '']) {
      expect(splitCacheBytes(bytes(f)), JSON.stringify(f)).toBeUndefined();
    }
  });

  it('writes the pieces in order, large strings and byte runs alike, readable only by its owner', () => {
    const dir = mkdtempSync(join(tmpdir(), 'driftless-bytes-'));
    const file = join(dir, 'out.json');
    const big = 'x'.repeat(70_000);
    const buf = bytes('..RUN..');
    writePieces(file, ['{', big, { buf, start: 2, end: 5 }, 'é', { buf, start: 0, end: 2 }, '}']);
    expect(readFileSync(file, 'utf8')).toBe(`{${big}RUNé..}`);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
