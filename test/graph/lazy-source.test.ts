/**
 * lazySource: a resource's `source` is read from its manifest object when first asked for, then
 * is an ordinary property. One getter and setter serve every object (so that resources keep one
 * hidden class); each object still gets its own position, settled on the object it was defined on.
 */
import { describe, expect, it } from 'vitest';
import { lazySource } from '../../src/graph/builder.js';
import { attachFieldSource, attachSource } from '../../src/manifest/source-map.js';
import type { SourceRange } from '../../src/diag/diagnostic.js';

const at = (line: number): SourceRange => ({ file: 'm.yaml', start: { line, col: 1 }, end: { line, col: 9 } });

describe('lazySource', () => {
  it('gives each object the position of its own manifest object, read when first asked for', () => {
    const specs = [1, 2, 3].map((line) => {
      const spec = {};
      attachSource(spec, at(line));
      return spec;
    });
    const resources = specs.map((spec) => {
      const res: { source?: SourceRange; name: string } = { name: 'x' };
      lazySource(res, spec);
      return res;
    });
    // Moved after the accessor was defined: the first read sees where the object is now.
    attachSource(specs[2]!, at(30));
    expect(resources.map((r) => r.source?.start.line)).toEqual([1, 2, 30]);
    // Settled: an ordinary enumerable property, no longer following the manifest object.
    attachSource(specs[0]!, at(10));
    expect(resources[0]!.source?.start.line).toBe(1);
    expect(Object.getOwnPropertyDescriptor(resources[0], 'source')).toEqual({ value: at(1), enumerable: true, writable: true, configurable: true });
    expect(Object.keys(resources[1]!)).toEqual(['name', 'source']);
  });

  it('reads a field position when asked with one, the object position when the field has none', () => {
    const spec = {};
    attachSource(spec, at(4));
    attachFieldSource(spec, 'protect', at(5));
    const a: { source?: SourceRange } = {};
    const b: { source?: SourceRange } = {};
    lazySource(a, spec, 'protect');
    lazySource(b, spec, 'other');
    expect(a.source?.start.line).toBe(5);
    expect(b.source?.start.line).toBe(4);
  });

  it('is enumerable before it is read, copied by a spread, replaced by an assignment', () => {
    const spec = {};
    attachSource(spec, at(7));
    const res: { source?: SourceRange } = {};
    lazySource(res, spec);
    expect(Object.keys(res)).toEqual(['source']);
    expect({ ...res }.source?.start.line).toBe(7);
    const other: { source?: SourceRange } = {};
    lazySource(other, spec);
    other.source = at(99);
    expect(other.source.start.line).toBe(99);
    expect(Object.getOwnPropertyDescriptor(other, 'source')?.value).toEqual(at(99));
  });

  it('read through an object that inherits it, settles on the object it was defined on', () => {
    const spec = {};
    attachSource(spec, at(12));
    const res: { source?: SourceRange } = {};
    lazySource(res, spec);
    const child = Object.create(res) as { source?: SourceRange };
    expect(child.source?.start.line).toBe(12);
    expect(Object.prototype.hasOwnProperty.call(child, 'source')).toBe(false);
    expect(Object.getOwnPropertyDescriptor(res, 'source')?.value).toEqual(at(12));
  });

  it('given twice before it is read, reads the second position; leaves nothing visible on the object', () => {
    const first = {};
    attachSource(first, at(1));
    const second = {};
    attachSource(second, at(2));
    const res: { source?: SourceRange; name: string } = { name: 'x' };
    lazySource(res, first);
    lazySource(res, second);
    expect(Object.getOwnPropertyNames(res)).toEqual(['name', 'source']);
    expect(Object.getOwnPropertySymbols(res)).toEqual([]);
    expect(JSON.parse(JSON.stringify(res))).toEqual({ name: 'x', source: at(2) });
    // Settled: given again, it is lazy again.
    lazySource(res, first);
    expect(res.source?.start.line).toBe(1);
  });
});
