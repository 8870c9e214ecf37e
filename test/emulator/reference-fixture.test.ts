/**
 * The vendored reference (test/fixtures/reference/, written by scripts/vendor-reference.mjs) is what
 * the tests need of the real API's document and nothing else: exactly the selected operations and
 * schemas with every component they use, no descriptions or examples, its origin named. The script
 * itself, run on the fixture, gives the fixture back: nothing was edited by hand.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractSubset, shapeOnly } from '../../scripts/reference-subset.mjs';
import { loadReference } from './reference-check.js';

const fixture = loadReference();
const selection = JSON.parse(readFileSync(new URL('../fixtures/reference/selection.json', import.meta.url), 'utf8'));

describe('test/fixtures/reference: the vendored subset of the real API document', () => {
  it('names where it comes from and how to refresh it', () => {
    expect(fixture['x-vendored']).toMatchObject({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), generator: 'scripts/vendor-reference.mjs' });
    expect(fixture['x-vendored'].source).toContain('qovery-openapi.yaml');
    expect(fixture['x-vendored'].refresh).toContain('node scripts/vendor-reference.mjs');
    expect(fixture.info.version).toBeTruthy();
  });

  it('holds exactly the selected operations and schemas, closed under $ref, and the script reproduces it', () => {
    const vendored = Object.entries(fixture.paths).flatMap(([t, item]: [string, any]) => Object.keys(item).filter((m) => m !== 'parameters').map((m) => `${m.toUpperCase()} ${t}`));
    expect(vendored.sort()).toEqual([...selection.operations].sort());
    for (const name of selection.schemas) expect(fixture.components.schemas, name).toHaveProperty(name);
    // Every vendored operation is in the index of the whole document.
    for (const op of vendored) expect(fixture['x-operation-index']).toContain(op);
    // Extracting again from the fixture itself finds every reference inside it and changes nothing.
    const again = extractSubset(fixture, selection);
    expect(again.paths).toEqual(fixture.paths);
    expect(again.components).toEqual(fixture.components);
  });

  it('keeps shapes only: no description, example or summary outside a map of names', () => {
    expect(shapeOnly(fixture.paths)).toEqual(fixture.paths);
    expect(shapeOnly(fixture.components)).toEqual(fixture.components);
    // A property called `description` is a name, not prose: kept.
    expect(fixture.components.schemas.VariableImportRequest).toBeTruthy();
    expect(shapeOnly({ type: 'object', description: 'prose', properties: { description: { type: 'string', description: 'prose' } } })).toEqual({ type: 'object', properties: { description: { type: 'string' } } });
  });
});
