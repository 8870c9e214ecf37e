/**
 * foldedAddress (under matchKey, the key live and desired objects are paired on) walks the address
 * in place instead of splitting it: it must fold exactly as the split/map/join it replaced.
 */
import { describe, expect, it } from 'vitest';
import { CASE_INSENSITIVE_KINDS, RESOURCE_KINDS } from '../../src/model/kinds/names.js';
import { foldedAddress, matchKey } from '../../src/model/resource.js';

/** The fold as it was written before: every segment of a case-insensitive kind lower-cased. */
function reference(address: string): string {
  return address
    .split('/')
    .map((seg) => {
      const dot = seg.indexOf('.');
      if (dot < 0) return seg;
      return (CASE_INSENSITIVE_KINDS as readonly string[]).includes(seg.slice(0, dot)) ? seg.toLowerCase() : seg;
    })
    .join('/');
}

describe('foldedAddress', () => {
  it('folds the names of case-insensitive kinds only, and returns an address with nothing to fold as it is', () => {
    expect(foldedAddress('project.Shop/environment.Prod/application.API/variable.Key')).toBe('project.shop/environment.prod/application.api/variable.Key');
    const lower = 'project.shop/environment.prod/database.db/variable.KEY';
    expect(foldedAddress(lower)).toBe(lower);
    expect(foldedAddress('webhook.https:%2F%2FHooks.Example.com')).toBe('webhook.https:%2F%2FHooks.Example.com');
    expect(foldedAddress('organization')).toBe('organization');
    expect(foldedAddress('project.A//environment.B/')).toBe('project.a//environment.b/');
  });

  it('agrees with the split/map/join fold on generated addresses', () => {
    let seed = 7;
    const rand = (n: number) => (((seed = (Math.imul(seed, 1103515245) + 12345) | 0) >>> 8) % n);
    const pieces = ['a', 'B', '.', '/', '%2F', 'x.Y', 'Ü', 'ß', '', ...RESOURCE_KINDS.map((k) => `${k}.`)];
    for (let i = 0; i < 5000; i++) {
      let a = '';
      for (let j = rand(10); j >= 0; j--) a += pieces[rand(pieces.length)];
      expect(foldedAddress(a), JSON.stringify(a)).toBe(reference(a));
      expect(matchKey(a)).toBe(reference(a));
    }
  });
});
