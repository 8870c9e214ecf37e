/**
 * Finding 1, as a property: random edits of an applied manifest (immutable fields changed, names of
 * missing objects, declarations removed with or without a prune opt-in, values above the cluster's
 * maximum), applied with a random set of the guard flags, on the emulator. Whatever the edit:
 * - without --allow-replace, --allow-data-loss and a prune opt-in, no live object disappears;
 * - the apply summary's `N destroyed` equals the objects that really disappeared (read from the
 *   emulator, not from driftless).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FAST, startHarness } from '../e2e/helpers.js';
import { disappeared, ownedObjects, settledObjects } from './guards-support.js';

interface Edit {
  cluster: 'staging-cluster' | 'production-cluster' | 'stagging-cluster';
  databaseType: 'POSTGRESQL' | 'MYSQL';
  dropWorker: boolean;
  pruneServices: boolean;
  dropVariable: boolean;
  apiCpu: 500 | 9000;
}

const BASE: Edit = { cluster: 'staging-cluster', databaseType: 'POSTGRESQL', dropWorker: false, pruneServices: false, dropVariable: false, apiCpu: 500 };

function manifest(e: Edit): string {
  const app = (name: string, cpu: number) => [`          - type: application`, `            name: ${name}`, `            git_repository: { url: https://github.com/acme/${name}.git }`, `            dockerfile_path: Dockerfile`, `            cpu: ${cpu}`];
  return [
    'version: 1',
    'projects:',
    '  - name: shop',
    '    environments:',
    '      - name: preview',
    '        mode: DEVELOPMENT',
    `        cluster: ${e.cluster}`,
    ...(e.pruneServices ? ['        prune:', '          services: true'] : []),
    '        variables:',
    ...(e.dropVariable ? [] : ['          - key: GREETING', '            value: hello']),
    '          - key: KEEP',
    '            value: kept',
    '        services:',
    ...app('api', e.apiCpu),
    ...(e.dropWorker ? [] : app('worker', 500)),
    '          - type: database',
    '            name: db',
    `            database_type: ${e.databaseType}`,
    `            version: "${e.databaseType === 'POSTGRESQL' ? '16' : '8.0'}"`,
    '            mode: CONTAINER',
    '            storage: 10',
    '',
  ].join('\n');
}

const edits = fc.record<Edit>({
  cluster: fc.constantFrom('staging-cluster', 'production-cluster', 'stagging-cluster'),
  databaseType: fc.constantFrom('POSTGRESQL', 'MYSQL'),
  dropWorker: fc.boolean(),
  pruneServices: fc.boolean(),
  dropVariable: fc.boolean(),
  apiCpu: fc.constantFrom(500, 9000),
});
const flagSets = fc.subarray(['--allow-replace', '--allow-data-loss']);

describe('finding 1: no apply destroys without an opt-in, and the destroyed count is true', () => {
  it('finding 1: random edits and flags never delete without an opt-in, and "N destroyed" equals what disappeared', async () => {
    await fc.assert(
      fc.asyncProperty(edits, flagSets, async (edit, flags) => {
        const h = await startHarness();
        try {
          h.write({ 'm/main.yaml': manifest(BASE) });
          const first = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
          expect(first.code, first.stdout + first.stderr).toBe(0);
          const before = ownedObjects(h.emu);

          h.write({ 'm/main.yaml': manifest(edit) });
          const r = await h.run(['apply', 'm', '--auto-approve', ...FAST, ...flags]);
          const gone = disappeared(before, await settledObjects(h.emu));
          const summary = /(\d+) destroyed;/.exec(r.stdout);
          // Refused before any write (a plan error, a blocked change): no summary, nothing gone.
          expect(Number(summary?.[1] ?? 0), r.stdout + r.stderr).toBe(gone.length);
          const optedIn = flags.length > 0 || edit.pruneServices;
          if (!optedIn) expect(gone, r.stdout + r.stderr).toEqual([]);
          // A name that does not exist or a cpu above the maximum stops everything.
          if (edit.cluster === 'stagging-cluster' || edit.apiCpu === 9000) {
            expect(r.code).toBe(1);
            expect(gone).toEqual([]);
          }
        } finally {
          await h.close();
        }
      }),
      { numRuns: Number(process.env.GUARD_RUNS ?? 8), seed: Number(process.env.FUZZ_SEED ?? 20261125) },
    );
  }, 180_000);
});
