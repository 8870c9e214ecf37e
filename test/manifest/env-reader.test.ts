import { afterEach, describe, expect, it } from 'vitest';
import { isMainThread } from 'node:worker_threads';
import { envReader, hasRepeatedName, processEnvironment, type ProcessEnvironment } from '../../src/manifest/env-reader.js';
import { lookUpEnv, parseEnvArgument } from '../../src/manifest/env-reference.js';
import { resolveManifest } from '../../src/manifest/resolve.js';
import type { Manifest } from '../../src/manifest/types.js';

// Names set by these tests, removed after each one.
const setHere: string[] = [];
const setVar = (name: string, value: string) => {
  setHere.push(name);
  process.env[name] = value;
};
afterEach(() => {
  for (const n of setHere.splice(0)) delete process.env[n];
});

/** Names whose reads must agree: set, empty, unicode, deleted, never set, and names objects inherit. */
function namesToCompare(): string[] {
  setVar('DL_ENVREADER_PLAIN', 'value-1');
  setVar('DL_ENVREADER_EMPTY', '');
  setVar('DL_ENVREADER_UNICODE', 'zoë ✓ "quoted" \\ back\\slash \t tab');
  setVar('DL_ENVREADER_EQUALS', 'a=b=c');
  setVar('DL_ENVREADER_GONE', 'soon unset');
  delete process.env.DL_ENVREADER_GONE;
  for (let i = 0; i < 300; i++) setVar(`DL_ENVREADER_MANY_${i}`, `v${i}`);
  return [
    'DL_ENVREADER_PLAIN',
    'DL_ENVREADER_EMPTY',
    'DL_ENVREADER_UNICODE',
    'DL_ENVREADER_EQUALS',
    'DL_ENVREADER_GONE',
    'DL_ENVREADER_NEVER_SET',
    'constructor',
    '__proto__',
    'toString',
    'hasOwnProperty',
    'valueOf',
    'PATH',
    'HOME',
    ...Array.from({ length: 300 }, (_, i) => `DL_ENVREADER_MANY_${i}`),
  ];
}

const direct = (name: string): unknown => (process.env as Record<string, unknown>)[name];

describe('envReader', () => {
  // vitest runs this file in a forked process (pool: forks): its process.env is the real one.
  it.runIf(process.platform === 'linux' && isMainThread)('copies the process environment in one pass and reads exactly what process.env gives', () => {
    const names = namesToCompare();
    const read = envReader(process.env, processEnvironment, 0);
    const got = names.map((n) => read(n));
    // The copy was really taken (the comparison below is not of process.env with itself).
    expect(read.copied()).toBe(true);
    expect(got).toEqual(names.map((n) => (typeof direct(n) === 'string' ? direct(n) : undefined)));
    // Unset and empty stay apart, and what an object inherits is no variable.
    expect(read('DL_ENVREADER_EMPTY')).toBe('');
    expect(read('DL_ENVREADER_GONE')).toBeUndefined();
    expect(read('constructor')).toBeUndefined();
    expect(read('__proto__')).toBeUndefined();
    for (const n of names) {
      const ref = parseEnvArgument(n)!;
      expect(lookUpEnv(ref, read)).toEqual(lookUpEnv(ref, process.env));
    }
  });

  it('reads directly while reads are cheap, and copies once they have cost the budget', () => {
    let clock = 0;
    let copies = 0;
    const env = { A: 'a', B: '' } as Record<string, string | undefined>;
    const proc: ProcessEnvironment = {
      env,
      copy: () => {
        copies++;
        return new Map([['A', 'copied-a']]);
      },
      // Each timed read "takes" 1 ms.
      now: () => (clock += 1),
    };
    // One read in 8 is timed, and counts for 8: 8 ms after the first read, 16 after the ninth.
    const read = envReader(env, proc, 12);
    expect([read('A'), read('A'), read('B')]).toEqual(['a', 'a', '']);
    for (let i = 3; i < 8; i++) expect(read('A')).toBe('a');
    expect(copies).toBe(0);
    expect(read('B')).toBe('');
    expect(copies).toBe(0);
    expect(read('A')).toBe('copied-a');
    expect(read('B')).toBeUndefined();
    expect(copies).toBe(1);
  });

  it('never copies an object that is not the process environment, and keeps reading when no copy can be made', () => {
    const env = { A: 'a' } as Record<string, string | undefined>;
    let copies = 0;
    const other = envReader(env, { env: {}, copy: () => (copies++, new Map()), now: () => 0 }, 0);
    expect([other('A'), other('A'), other('constructor')]).toEqual(['a', 'a', undefined]);
    const refused = envReader(env, { env, copy: () => (copies++, undefined), now: () => 0 }, 0);
    expect([refused('A'), refused('A'), refused('toString')]).toEqual(['a', 'a', undefined]);
    expect(copies).toBe(1);
    expect(refused.copied()).toBe(false);
  });

  it('sees a name given twice at start-up (getenv gives the first, a one-pass copy the last)', () => {
    expect(hasRepeatedName('A=1\0B=2\0A=3\0')).toBe(true);
    expect(hasRepeatedName('A=1\0B=2\0AB=3\0NOEQUALS\0NOEQUALS\0')).toBe(false);
    expect(hasRepeatedName('')).toBe(false);
  });
});

describe('resolveManifest with the process environment', () => {
  const manifest = (names: string[]): Manifest =>
    ({
      version: 1,
      projects: [{ name: 'p', variables: names.map((n, i) => ({ key: `K${i}`, value: `\${env:${n}}` })) }],
    }) as unknown as Manifest;

  it.runIf(process.platform === 'linux' && isMainThread)('resolves many references through the copy as through reads, and a value changed between two loads is seen', () => {
    const names = Array.from({ length: 400 }, (_, i) => `DL_ENVREADER_R_${i}`);
    names.forEach((n, i) => setVar(n, `value-${i}`));
    const readFile = () => ({ ok: false as const, reason: 'none' });
    const viaCopy = manifest(names);
    const copied = envReader(process.env, processEnvironment, 0);
    expect(resolveManifest(viaCopy, { env: process.env, readFile, readEnv: copied }).diagnostics).toEqual([]);
    expect(copied.copied()).toBe(true);
    const viaReads = manifest(names);
    expect(resolveManifest(viaReads, { env: { ...process.env }, readFile }).diagnostics).toEqual([]);
    expect(viaCopy).toEqual(viaReads);

    process.env.DL_ENVREADER_R_7 = 'rotated';
    const again = manifest(names);
    resolveManifest(again, { env: process.env, readFile, readEnv: envReader(process.env, processEnvironment, 0) });
    expect(again.projects![0]!.variables![7]!.value).toBe('rotated');
  });
});
