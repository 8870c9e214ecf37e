import { describe, expect, it } from 'vitest';
import { confusablePairs, skeleton } from '../../src/manifest/confusables.js';
import { numberProblem } from '../../src/manifest/numbers.js';
import { lookUpEnv, parseEnvArgument } from '../../src/manifest/env-reference.js';

describe('skeleton (UTS #39 over the ASCII-prototype subset of confusables.txt)', () => {
  it('maps look-alikes to the same skeleton', () => {
    expect(skeleton('\u0455hop')).toBe(skeleton('shop')); // Cyrillic dze
    expect(skeleton('\u0430pi')).toBe(skeleton('api')); // Cyrillic a
    expect(skeleton('L0G_LEVEL')).toBe(skeleton('LOG_LEVEL')); // digit zero, letter O
    expect(skeleton('modern')).toBe(skeleton('rnodern')); // m and r n
    expect(skeleton('ｓｈｏｐ')).toBe(skeleton('shop')); // fullwidth
  });

  it('keeps different names apart, accents included', () => {
    expect(skeleton('shop')).not.toBe(skeleton('shap'));
    expect(skeleton('café')).not.toBe(skeleton('cafe'));
    expect(skeleton('api-1')).not.toBe(skeleton('api-2'));
  });

  it('gives an ASCII name (read without normalizing) the skeleton the same characters get beside a non-ASCII one', () => {
    // `é` sends the whole name through NFD and the table; its skeleton does not reach across.
    const ascii = Array.from({ length: 0x80 }, (_, i) => String.fromCharCode(i));
    for (const ch of ascii) expect(skeleton(`${ch}é`), JSON.stringify(ch)).toBe(skeleton(ch) + skeleton('é'));
    expect(skeleton('VAR_01|mI`"')).toBe('VAR_Ollrnl\'\'\'');
    expect(skeleton(`VAR_01|mI\`"é`)).toBe(`${skeleton('VAR_01|mI`"')}${skeleton('é')}`);
  });
});

describe('confusablePairs', () => {
  const named = (...names: string[]) => names.map((name) => ({ name }));
  it('pairs each look-alike with the first name of its skeleton', () => {
    const items = named('shop', 'web', '\u0455hop', 'ѕһор');
    expect(confusablePairs(items, (i) => i.name, true).map((p) => [p.first.name, p.second.name])).toEqual([
      ['shop', '\u0455hop'],
      ['shop', 'ѕһор'],
    ]);
  });

  it('leaves names the platform takes as one (case-insensitively) to the duplicate check', () => {
    expect(confusablePairs(named('Shop', 'shop'), (i) => i.name, true)).toEqual([]);
    expect(confusablePairs(named('Shop', 'shop'), (i) => i.name, false)).toEqual([]);
    expect(confusablePairs(named('SHOP', '\u0455hop'), (i) => i.name, true)).toHaveLength(1);
  });
});

describe('numberProblem', () => {
  it('accepts finite numbers within ±(2^53 - 1)', () => {
    for (const n of [0, -1, 1.5, 65535, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER]) expect(numberProblem(n)).toBeUndefined();
  });
  it('refuses what the API would not get as written', () => {
    expect(numberProblem(1e308)).toContain('too large: read as 1e+308');
    expect(numberProblem(2 ** 53)).toContain('too large');
    expect(numberProblem(-(2 ** 53))).toContain('too large');
    expect(numberProblem(Infinity)).toBe('is infinite');
    expect(numberProblem(NaN)).toBe('is not a number (.nan)');
  });
});

describe('${env:NAME:-default}', () => {
  it('parses a name and an optional default (which may hold colons, dashes, spaces)', () => {
    expect(parseEnvArgument('A_1')).toEqual({ name: 'A_1' });
    expect(parseEnvArgument('A:-')).toEqual({ name: 'A', fallback: '' });
    expect(parseEnvArgument('A:-http://x:1/a-b c')).toEqual({ name: 'A', fallback: 'http://x:1/a-b c' });
    for (const bad of ['', '1A', 'A-b', 'A:b', 'A:=x', 'A B']) expect(parseEnvArgument(bad)).toBeUndefined();
  });
  it('distinguishes unset, empty, and a default taken for either', () => {
    expect(lookUpEnv({ name: 'A' }, {})).toEqual({ kind: 'unset' });
    expect(lookUpEnv({ name: 'A' }, { A: '' })).toEqual({ kind: 'empty' });
    expect(lookUpEnv({ name: 'A' }, { A: 'v' })).toEqual({ kind: 'value', value: 'v' });
    expect(lookUpEnv({ name: 'A', fallback: 'd' }, { A: '' })).toEqual({ kind: 'value', value: 'd' });
    expect(lookUpEnv({ name: 'A', fallback: '' }, {})).toEqual({ kind: 'value', value: '' });
    expect(lookUpEnv({ name: 'toString' }, {})).toEqual({ kind: 'unset' });
  });
});
