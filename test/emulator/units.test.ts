/** Pure building blocks of the emulator: projector, journal tracking, rate limiter, faults, helpers. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { projector } from '../../src/emulator/projector.js';
import { applyJournalEntry, trackState } from '../../src/emulator/persistence.js';
import { RateLimiter } from '../../src/emulator/rate-limit.js';
import { decideFault, seededRandom } from '../../src/emulator/faults.js';
import { nestingDepth, stripVersionPrefix, withoutInput } from '../../src/emulator/app.js';
import { parseVariables, repoKey } from '../../src/emulator/terraform-vars.js';
import { describeValidationError, fieldPath } from '../../src/emulator/errors.js';
import { defaultState } from '../../src/emulator/seed.js';
import { randomUUID } from 'node:crypto';

describe('projector', () => {
  it('keeps exactly the declared fields, recursively, and drops the rest', () => {
    const p = projector({
      type: 'object',
      properties: { id: { type: 'string' }, tags: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } } } }, meta: { type: 'object', additionalProperties: true } },
    });
    expect(p({ id: 'x', secret: 's3cr3t', tags: [{ k: 'a', hidden: 1 }], meta: { any: 1 } })).toEqual({ id: 'x', tags: [{ k: 'a' }], meta: { any: 1 } });
    expect(p(null)).toBe(null);
  });

  it('picks the union alternative by its single-value enum discriminator', () => {
    const p = projector({
      anyOf: [
        { type: 'object', properties: { service_type: { enum: ['A'] }, a: { type: 'string' } } },
        { type: 'object', properties: { service_type: { enum: ['B'] }, b: { type: 'string' } } },
      ],
    });
    expect(p({ service_type: 'B', a: 'no', b: 'yes' })).toEqual({ service_type: 'B', b: 'yes' });
    expect(p({ service_type: 'C', a: 'x' })).toEqual({});
    expect(() => projector({ anyOf: [{ type: 'object', properties: { a: {} } }] })).toThrow(/discriminator/);
  });
});

describe('journal tracking', () => {
  it('replaying the recorded entries over the old snapshot reproduces the state, for any sequence of writes', () => {
    const keys = ['a', 'b', 'c', 'd'];
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), c: fc.constantFrom('projects', 'services'), k: fc.constantFrom(...keys), v: fc.string() }),
      fc.record({ kind: fc.constant('del' as const), c: fc.constantFrom('projects', 'services'), k: fc.constantFrom(...keys) }),
      fc.record({ kind: fc.constant('root' as const), v: fc.string() }),
    );
    fc.assert(
      fc.property(fc.array(fc.array(op, { maxLength: 6 }), { maxLength: 6 }), (batches) => {
        const raw = defaultState({ newId: randomUUID, nowIso: () => '2026-01-01T00:00:00.000Z' });
        const snapshot = structuredClone(raw);
        const tracked = trackState(raw);
        const journal = [];
        for (const batch of batches) {
          for (const o of batch) {
            if (o.kind === 'set') (tracked.state as any)[o.c][o.k] = { id: o.k, created_at: 'x', name: o.v };
            else if (o.kind === 'del') delete (tracked.state as any)[o.c][o.k];
            else tracked.state.organization = { ...tracked.state.organization, name: o.v };
          }
          journal.push(...JSON.parse(JSON.stringify(tracked.takeDirty())));
        }
        for (const e of journal) applyJournalEntry(snapshot as any, e);
        expect(snapshot).toEqual(raw);
        // Records and whole-replaced values handed out by the tracked state stay cloneable.
        expect(() => structuredClone(tracked.state.organization)).not.toThrow();
        expect(() => structuredClone(tracked.state.tokens)).not.toThrow();
      }),
      { numRuns: 200, seed: 11 },
    );
  });
});

describe('rate limiter', () => {
  it('resets after the window and reports Retry-After in whole seconds', () => {
    let now = 1_000_000;
    const rl = new RateLimiter(2, 10, { now: () => new Date(now) });
    expect(rl.hit('t').remaining).toBe(1);
    expect(rl.hit('t').allowed).toBe(true);
    now += 2500;
    const denied = rl.hit('t');
    expect(denied).toMatchObject({ allowed: false, remaining: 0, retryAfterS: 8, reset: Math.ceil((1_000_000 + 10_000) / 1000) });
    expect(rl.hit('other').allowed).toBe(true);
    now += 7500;
    expect(rl.hit('t')).toMatchObject({ allowed: true, remaining: 1 });
  });
});

describe('faults', () => {
  it('are reproducible from the seed and close to the requested rate', () => {
    const run = (seed: number) => {
      const r = seededRandom(seed);
      return Array.from({ length: 2000 }, () => decideFault(r, 0.3));
    };
    expect(run(5)).toEqual(run(5));
    const faults = run(5).filter(Boolean);
    expect(faults.length).toBeGreaterThan(500);
    expect(faults.length).toBeLessThan(700);
    expect(new Set(faults.map((f) => `${f!.kind}/${f!.when}`))).toEqual(new Set(['500/before', '500/after', '503/before', '503/after', 'drop/before', 'drop/after']));
    expect(decideFault(seededRandom(1), 0)).toBeUndefined();
  });
});

describe('helpers', () => {
  it('strips the /api/v1 prefix only as a whole segment', () => {
    expect(stripVersionPrefix('/api/v1/organization')).toBe('/organization');
    expect(stripVersionPrefix('/api/v1')).toBe('/');
    expect(stripVersionPrefix('/api/v1?x=1')).toBe('/?x=1');
    expect(stripVersionPrefix('/api/v10/organization')).toBe('/api/v10/organization');
    expect(stripVersionPrefix('/organization')).toBe('/organization');
  });

  it('measures JSON nesting without parsing, ignoring brackets in strings', () => {
    expect(nestingDepth('{"a": [1, {"b": []}]}')).toBe(4);
    expect(nestingDepth('{"a": "[[[[\\"{{{"}')).toBe(1);
    expect(nestingDepth('42')).toBe(0);
  });

  it('never keeps the quoted input of a JSON syntax error', () => {
    let msg = '';
    try {
      JSON.parse('{"token": hunter2-secret}');
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(withoutInput(msg)).not.toContain('hunter2');
  });

  it('names fields the way users write them', () => {
    expect(fieldPath('/ports/0/internal_port')).toBe('ports[0].internal_port');
    expect(fieldPath('', 'name')).toBe('name');
    expect(describeValidationError({ keyword: 'enum', instancePath: '/mode', params: { allowedValues: ['A', 'B'] } }, 'body')).toBe("request body: field 'mode' must be one of: A, B");
  });

  it('parses variable blocks of Terraform files, skipping nested blocks and comments', () => {
    const vars = parseVariables(
      `# variable "commented" {}\nvariable "a" {\n  default = "x { y }"\n  # description = "no"\n  validation {\n    condition = true\n  }\n  description = "the a"\n}\nvariable "b" {\n  sensitive = true\n  nullable = false\n  default = [1, 2]\n}\n`,
      'main.tf',
    );
    expect(vars).toEqual([
      { key: 'a', default: 'x { y }', description: 'the a', sensitive: false, nullable: true, source: 'main.tf' },
      { key: 'b', default: '[1, 2]', description: null, sensitive: true, nullable: false, source: 'main.tf' },
    ]);
    expect(repoKey('git@github.com:acme/infra.git')).toBe('acme/infra');
    expect(repoKey('https://gitlab.example.com/acme/network/')).toBe('acme/network');
    expect(repoKey('not a url')).toBeUndefined();
  });
});
