/**
 * Property (issue 18, "Cascades in the plan"): over random organizations (one or two projects, one
 * or two environments each, a random set of services with variables) and one random removal at
 * every level (a project, an environment, a service, a service re-declared with another kind),
 * applied with random --allow-data-loss / --allow-replace:
 * - no database disappears from the emulator without --allow-data-loss;
 * - the plan's destroyed count equals what the emulator lost (read straight from its state, never
 *   through driftless), and nothing is lost when the apply refuses the plan;
 * - a database that disappeared was backed up first.
 * The manifests prune every level, so every removal is a deletion driftless must guard and count.
 * Figures are recorded for RELIABILITY.md (test/support/reliability.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';
import { disappeared, ownedObjects, settledObjects } from './guards-support.js';
import { record } from '../support/reliability.js';

const RUNS = Number(process.env.CASCADE_PROPERTY_RUNS ?? 12);
const SEED = Number(process.env.CASCADE_PROPERTY_SEED ?? 20261127);

type ServiceName = 'api' | 'web' | 'db';
interface Shape {
  projects: Array<{ name: string; environments: Array<{ name: string; services: ServiceName[] }> }>;
}
type Removal =
  | { level: 'project'; p: number }
  | { level: 'environment'; p: number; e: number }
  | { level: 'service'; p: number; e: number; s: number }
  | { level: 'kind'; p: number; e: number; s: number };

const application = (name: string) => ({ type: 'application', name, git_repository: { url: 'https://github.com/acme/api.git' }, dockerfile_path: 'Dockerfile', variables: [{ key: 'MODE', value: 'app' }] });
const container = (name: string) => ({ type: 'container', name, registry: 'docker-hub', image_name: 'library/nginx', tag: '1.27', variables: [{ key: 'MODE', value: 'container' }] });

/** api: an application, web: a container, db: a database; `otherKind`: the same name as another kind. */
function service(name: ServiceName, otherKind = false): Record<string, unknown> {
  if (name === 'api') return otherKind ? container(name) : application(name);
  if (name === 'web') return otherKind ? application(name) : container(name);
  return otherKind ? container(name) : { type: 'database', name, database_type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', storage: 10 };
}

/** The manifest of a shape, with a removal (or a kind change) applied when given. */
function manifestOf(shape: Shape, removal?: Removal): string {
  const projects = shape.projects.flatMap((p, pi) => {
    if (removal?.level === 'project' && removal.p === pi) return [];
    const here = (r: Removal | undefined, ei: number) => r !== undefined && r.level !== 'project' && r.p === pi && r.e === ei;
    return [{
      name: p.name,
      prune: { environments: true, variables: true },
      variables: [{ key: 'OWNER', value: p.name }],
      environments: p.environments.flatMap((e, ei) => {
        if (removal?.level === 'environment' && here(removal, ei)) return [];
        const services = e.services.flatMap((s, si) => {
          if (removal?.level === 'service' && here(removal, ei) && removal.s === si) return [];
          return [service(s, removal?.level === 'kind' && here(removal, ei) && removal.s === si)];
        });
        return [{ name: e.name, mode: 'DEVELOPMENT', cluster: 'staging-cluster', prune: { services: true, variables: true }, variables: [{ key: 'REGION', value: e.name }], services }];
      }),
    }];
  });
  return stringify({ version: 1, prune: { projects: true }, projects });
}

const shapeArb: fc.Arbitrary<Shape> = fc
  .array(fc.array(fc.subarray<ServiceName>(['api', 'web', 'db'], { minLength: 1 }), { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 2 })
  .map((ps) => ({ projects: ps.map((envs, pi) => ({ name: `p${pi}`, environments: envs.map((services, ei) => ({ name: `e${ei}`, services })) })) }));

/** A removal that names something of the shape (indices folded into range). */
const removalArb = (shape: Shape): fc.Arbitrary<Removal> =>
  fc.record({ level: fc.constantFrom('project', 'environment', 'service', 'kind'), p: fc.nat(), e: fc.nat(), s: fc.nat() }).map(({ level, p, e, s }) => {
    const pi = p % shape.projects.length;
    const envs = shape.projects[pi]!.environments;
    const ei = e % envs.length;
    const si = s % envs[ei]!.services.length;
    return level === 'project' ? { level, p: pi } : level === 'environment' ? { level, p: pi, e: ei } : { level, p: pi, e: ei, s: si };
  });

/** Every object a manifest can own, projects included (ownedObjects leaves them out). */
function everything(h: Harness): Set<string> {
  const out = ownedObjects(h.emu);
  for (const id of Object.keys(h.emu.state.projects)) out.add(`project:${id}`);
  return out;
}
const databases = (h: Harness) => new Set(Object.values(h.emu.state.services).filter((s) => s.service_type === 'DATABASE').map((s) => s.id));

describe('property: what goes with a deleted parent or a kind change is guarded and counted', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('random organizations and removals: no database lost without --allow-data-loss, and the plan counts what the emulator lost', async () => {
    const started = Date.now();
    const tally = { runs: 0, applied: 0, refused: 0, objectsDestroyed: 0, databasesDestroyed: 0, backups: 0 };
    await fc.assert(
      fc.asyncProperty(
        shapeArb.chain((shape) => fc.tuple(fc.constant(shape), removalArb(shape))),
        fc.record({ allowDataLoss: fc.boolean(), allowReplace: fc.boolean() }),
        async ([shape, removal], flags) => {
          await h?.close();
          h = await startHarness();
          h.write({ 'm/main.yaml': manifestOf(shape) });
          const first = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
          expect(first.code, first.stdout + first.stderr).toBe(0);
          const before = everything(h);
          const dbsBefore = databases(h);
          expect(dbsBefore.size, 'the database records are recognised').toBe(shape.projects.flatMap((p) => p.environments.flatMap((e) => e.services)).filter((s) => s === 'db').length);

          h.write({ 'm/main.yaml': manifestOf(shape, removal) });
          const flagArgs = [...(flags.allowDataLoss ? ['--allow-data-loss'] : []), ...(flags.allowReplace ? ['--allow-replace'] : [])];
          const plan = await h.run(['plan', 'm', '--json', ...flagArgs]);
          const context = `removal ${JSON.stringify(removal)} of ${JSON.stringify(shape)}; flags ${JSON.stringify(flags)}\n${plan.stderr}`;
          expect(plan.code, context).toBe(0);
          const planned = JSON.parse(plan.stdout);
          const r = await h.run(['apply', 'm', '--auto-approve', ...FAST, ...flagArgs]);
          const settled = await settledObjects(h.emu);
          for (const id of Object.keys(h.emu.state.projects)) settled.add(`project:${id}`);
          const gone = disappeared(before, settled);
          const dbsGone = [...dbsBefore].filter((id) => gone.includes(`service:${id}`));
          tally.runs++;

          if (!flags.allowDataLoss) expect(dbsGone, context).toEqual([]);
          if (r.code !== 0) {
            tally.refused++;
            expect(planned.applyable, context + r.stderr).toBe(false);
            expect(gone, context).toEqual([]);
            return;
          }
          tally.applied++;
          expect(planned.applyable, context).toBe(true);
          expect(gone.length, `${context}\ngone: ${gone.join(', ')}\n${r.stdout}`).toBe(planned.summary.destroy);
          const backedUp = new Set(Object.values(h.emu.state.backups).map((b) => b.database_id));
          for (const id of dbsGone) expect(backedUp.has(id), `${context}: database ${id} deleted without a backup`).toBe(true);
          tally.objectsDestroyed += gone.length;
          tally.databasesDestroyed += dbsGone.length;
          tally.backups += backedUp.size;
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
    record('property-cascades', {
      title: 'Random organizations (1-2 projects of 1-2 environments, random services with variables, everything pruned) and one random removal of a project, an environment or a service, or a kind change, applied with random flags: no database lost without --allow-data-loss, each lost one backed up first, and the plan\'s destroyed count equal to what the emulator lost',
      file: 'test/safety/property-cascades.test.ts',
      command: 'npm test',
      figures: {
        runs: tally.runs,
        'applies done': tally.applied,
        'applies refused by a guard': tally.refused,
        'objects destroyed (plan count = emulator loss)': tally.objectsDestroyed,
        'databases destroyed (all with --allow-data-loss, all backed up)': tally.databasesDestroyed,
        'total (s)': ((Date.now() - started) / 1000).toFixed(1),
      },
    });
  }, 120_000);
});
