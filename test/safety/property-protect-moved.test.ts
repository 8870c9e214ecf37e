/**
 * Property (issue 18, "Cascades in the plan": protect and moved): over random organizations (one or
 * two projects of one or two environments, random services, everything pruned) with random
 * `protect: true` marks, a random sequence of steps, each applied with random --allow-data-loss /
 * --allow-replace: marking or unmarking an object (`protect: true`, `protect: false`, the key
 * removed), removing a project, an environment or a service (pruned), re-declaring a service with
 * another kind, and renaming an object with `moved` entries, valid or not (a plain rename, two
 * entries with one `to`, one `from` twice, a cycle, an entry whose `from` names nothing).
 * After each apply, read straight from the emulator's state (never through driftless):
 * - no protected object disappeared (deleted, or replaced by a kind change): one the applied
 *   manifest marks `protect: true`, or one an earlier apply marked that no `protect: false` has
 *   lifted since (its declaration removed, its parent pruned or not);
 * - no database disappeared without --allow-data-loss;
 * - no live object a `moved` entry names as `from` disappeared;
 * - the plan's destroyed count equals what the emulator lost, and nothing is lost when the apply
 *   refuses the plan;
 * - every mark an apply recorded (projects and services) is on the live record.
 * The test keeps its own model of the marks (which objects an apply declared protected, by id), so
 * a mark driftless forgot to write or read is a failure, not a silently smaller protected set.
 * Figures are recorded for RELIABILITY.md (test/support/reliability.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';
import { disappeared, ownedObjects, settledObjects } from './guards-support.js';
import { record } from '../support/reliability.js';

const RUNS = Number(process.env.PROTECT_PROPERTY_RUNS ?? 12);
const STEPS = Number(process.env.PROTECT_PROPERTY_STEPS ?? 3);
const SEED = Number(process.env.PROTECT_PROPERTY_SEED ?? 7);

type Kind = 'application' | 'container' | 'database';
/** `protect` as written: true, false, or no key (undefined). */
type Mark = boolean | undefined;
interface Svc { name: string; kind: Kind; protect: Mark; id?: string }
interface Env { name: string; protect: Mark; services: Svc[]; id?: string }
interface Proj { name: string; protect: Mark; environments: Env[]; id?: string }
type Org = Proj[];

type Level = 'project' | 'environment' | 'service';
type MovedVariant = 'rename' | 'duplicate-to' | 'duplicate-from' | 'cycle' | 'missing-from';
/** A step; its indices are folded into range against the organization it is applied to. */
type Step =
  | { op: 'protect'; level: Level; at: number[]; value: Mark }
  | { op: 'remove'; level: Level; at: number[] }
  | { op: 'kind'; at: number[] }
  | { op: 'moved'; level: Level; at: number[]; variant: MovedVariant };
interface Flags { allowDataLoss: boolean; allowReplace: boolean }

const TYPE: Record<Kind, string> = { application: 'APPLICATION', container: 'CONTAINER', database: 'DATABASE' };

function serviceYaml(s: Svc): Record<string, unknown> {
  const mark = s.protect === undefined ? {} : { protect: s.protect };
  if (s.kind === 'application') return { type: 'application', name: s.name, ...mark, git_repository: { url: 'https://github.com/acme/api.git' }, dockerfile_path: 'Dockerfile', variables: [{ key: 'MODE', value: 'app' }] };
  if (s.kind === 'container') return { type: 'container', name: s.name, ...mark, registry: 'docker-hub', image_name: 'library/nginx', tag: '1.27', variables: [{ key: 'MODE', value: 'container' }] };
  return { type: 'database', name: s.name, ...mark, database_type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', storage: 10 };
}

function manifestOf(org: Org, moved: Array<{ from: string; to: string }>): string {
  const m = (x: Mark) => (x === undefined ? {} : { protect: x });
  const projects = org.map((p) => ({
    name: p.name,
    ...m(p.protect),
    prune: { environments: true, variables: true },
    variables: [{ key: 'OWNER', value: p.name }],
    environments: p.environments.map((e) => ({
      name: e.name,
      ...m(e.protect),
      mode: 'DEVELOPMENT',
      cluster: 'staging-cluster',
      prune: { services: true, variables: true },
      variables: [{ key: 'REGION', value: e.name }],
      services: e.services.map(serviceYaml),
    })),
  }));
  return stringify({ version: 1, prune: { projects: true }, projects, ...(moved.length ? { moved } : {}) });
}

const markArb: fc.Arbitrary<Mark> = fc.constantFrom(true, false, undefined);
const orgArb: fc.Arbitrary<Org> = fc
  .array(
    fc.record({
      protect: markArb,
      environments: fc.array(
        fc.record({
          protect: markArb,
          services: fc.subarray<Kind>(['application', 'container', 'database'], { minLength: 1 }).chain((kinds) => fc.tuple(...kinds.map((k) => fc.record({ kind: fc.constant(k), protect: markArb })))),
        }),
        { minLength: 1, maxLength: 2 },
      ),
    }),
    { minLength: 1, maxLength: 2 },
  )
  .map((ps) =>
    ps.map((p, pi) => ({
      name: `p${pi}`,
      protect: p.protect,
      environments: p.environments.map((e, ei) => ({
        name: `e${ei}`,
        protect: e.protect,
        services: e.services.map((s) => ({ name: s.kind === 'application' ? 'api' : s.kind === 'container' ? 'web' : 'db', kind: s.kind, protect: s.protect })),
      })),
    })),
  );

const levelArb = fc.constantFrom<Level>('project', 'environment', 'service');
const atArb = fc.array(fc.nat(), { minLength: 3, maxLength: 3 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('protect' as const), level: levelArb, at: atArb, value: markArb }),
  fc.record({ op: fc.constant('remove' as const), level: levelArb, at: atArb }),
  fc.record({ op: fc.constant('kind' as const), at: atArb }),
  fc.record({ op: fc.constant('moved' as const), level: levelArb, at: atArb, variant: fc.constantFrom<MovedVariant>('rename', 'duplicate-to', 'duplicate-from', 'cycle', 'missing-from') }),
);
const flagsArb: fc.Arbitrary<Flags> = fc.record({ allowDataLoss: fc.boolean(), allowReplace: fc.boolean() });

const clone = (org: Org): Org => structuredClone(org);

/** The object a step names (indices folded into range), with its address and its parent's list. */
function pick(org: Org, level: Level, at: number[]): { obj: Proj | Env | Svc; list: Array<Proj | Env | Svc>; address: (name: string) => string } | undefined {
  if (org.length === 0) return undefined;
  const p = org[at[0]! % org.length]!;
  if (level === 'project') return { obj: p, list: org, address: (n) => `project.${n}` };
  if (p.environments.length === 0) return undefined;
  const e = p.environments[at[1]! % p.environments.length]!;
  const envAt = `project.${p.name}/environment.`;
  if (level === 'environment') return { obj: e, list: p.environments, address: (n) => `${envAt}${n}` };
  if (e.services.length === 0) return undefined;
  const s = e.services[at[2]! % e.services.length]!;
  return { obj: s, list: e.services, address: (n) => `${envAt}${e.name}/${s.kind}.${n}` };
}

/** The organization a step asks for (a copy), and its `moved` entries. */
function applyStep(current: Org, step: Step): { org: Org; moved: Array<{ from: string; to: string }> } {
  const org = clone(current);
  const target = pick(org, step.op === 'kind' ? 'service' : step.level, step.at);
  if (!target) return { org, moved: [] };
  const { obj, list, address } = target;
  if (step.op === 'protect') {
    obj.protect = step.value;
    return { org, moved: [] };
  }
  if (step.op === 'remove') {
    list.splice(list.indexOf(obj), 1);
    return { org, moved: [] };
  }
  if (step.op === 'kind') {
    const s = obj as Svc;
    // The same name, another kind: a replacement (the new declaration keeps the mark as written).
    s.kind = s.kind === 'application' ? 'container' : s.kind === 'container' ? 'application' : 'container';
    return { org, moved: [] };
  }
  const from = address(obj.name);
  const newName = `${obj.name}n`;
  const to = address(newName);
  obj.name = newName;
  switch (step.variant) {
    case 'rename':
      return { org, moved: [{ from, to }] };
    case 'duplicate-to':
      return { org, moved: [{ from, to }, { from: address('ghost'), to }] };
    case 'duplicate-from':
      return { org, moved: [{ from, to }, { from, to: address(`${newName}2`) }] };
    case 'cycle':
      return { org, moved: [{ from, to }, { from: to, to: from }] };
    case 'missing-from':
      // The entry names nothing live: the object itself is renamed without one (so pruned).
      return { org, moved: [{ from: address('ghost'), to }] };
  }
}

const ref = (r: unknown) => (r as { id?: string } | undefined)?.id;
const MARK = /\[driftless:v1[^\]]*\bprotect=true/;

/** The live id of an address (`project.p0/environment.e0/application.api`), read from the emulator's state. */
function liveId(h: Harness, address: string): string | undefined {
  const parts = address.split('/').map((x) => x.slice(x.indexOf('.') + 1));
  const kinds = address.split('/').map((x) => x.slice(0, x.indexOf('.')));
  const s = h.emu.state;
  const project = Object.values(s.projects).find((p) => p.name === parts[0]);
  if (!project || kinds.length === 1) return project?.id as string | undefined;
  const env = Object.values(s.environments).find((e) => ref(e.project) === project.id && e.name === parts[1]);
  if (!env || kinds.length === 2) return env?.id as string | undefined;
  const svc = Object.values(s.services).find((x) => ref(x.environment) === env.id && x.name === parts[2] && x.service_type === TYPE[kinds[2] as Kind]);
  return svc?.id as string | undefined;
}

/** Sets the live id of every object of the model (after an apply it asked for). */
function bindIds(h: Harness, org: Org): void {
  for (const p of org) {
    p.id = liveId(h, `project.${p.name}`);
    for (const e of p.environments) {
      e.id = liveId(h, `project.${p.name}/environment.${e.name}`);
      for (const s of e.services) s.id = liveId(h, `project.${p.name}/environment.${e.name}/${s.kind}.${s.name}`);
    }
  }
}

const key = (level: 'project' | 'environment' | 'service', id: string) => `${level}:${id}`;

/** Every object a manifest can own, projects included, as `kind:id`. */
async function settled(h: Harness): Promise<Set<string>> {
  const out = await settledObjects(h.emu);
  for (const id of Object.keys(h.emu.state.projects)) out.add(key('project', id));
  return out;
}
const databases = (h: Harness) => new Set(Object.values(h.emu.state.services).filter((s) => s.service_type === 'DATABASE').map((s) => key('service', s.id as string)));

/** Projects and services whose live description carries the protect mark. */
function liveMarks(h: Harness): Set<string> {
  const out = new Set<string>();
  for (const p of Object.values(h.emu.state.projects)) if (MARK.test(String(p.description ?? ''))) out.add(key('project', p.id as string));
  for (const s of Object.values(h.emu.state.services)) if (MARK.test(String(s.description ?? ''))) out.add(key('service', s.id as string));
  return out;
}

/** Walks the model: every object with its level. */
function* objects(org: Org): Generator<{ level: 'project' | 'environment' | 'service'; o: Proj | Env | Svc }> {
  for (const p of org) {
    yield { level: 'project', o: p };
    for (const e of p.environments) {
      yield { level: 'environment', o: e };
      for (const s of e.services) yield { level: 'service', o: s };
    }
  }
}

/**
 * What this apply must not delete or replace: what the manifest marks `protect: true` (by the id of
 * the object it was bound to: a renamed or re-kinded object keeps it), and what an earlier apply
 * marked (`marked`) unless the manifest now says `protect: false` of it.
 */
function protectedIds(org: Org, marked: ReadonlySet<string>): Set<string> {
  const out = new Set(marked);
  for (const { level, o } of objects(org)) {
    if (o.id === undefined) continue;
    if (o.protect === true) out.add(key(level, o.id));
    if (o.protect === false) out.delete(key(level, o.id));
  }
  return out;
}

/** The marks an applied manifest leaves on live projects and services (environments cannot carry one). */
function updateMarks(org: Org, marked: Set<string>): void {
  for (const { level, o } of objects(org)) {
    if (o.id === undefined || level === 'environment') continue;
    if (o.protect === true) marked.add(key(level, o.id));
    if (o.protect === false) marked.delete(key(level, o.id));
  }
}

describe('property: protect and moved never let an object go that they guard', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('random organizations, marks, removals, kind changes and moved entries: nothing protected or named as `from` is lost, no database without --allow-data-loss, and the plan counts what the emulator lost', async () => {
    const started = Date.now();
    const tally = { runs: 0, steps: 0, applied: 0, refused: 0, protectedKept: 0, movedFromsKept: 0, objectsDestroyed: 0, databasesDestroyed: 0 };
    await fc.assert(
      fc.asyncProperty(orgArb, fc.array(fc.tuple(stepArb, flagsArb), { minLength: STEPS, maxLength: STEPS }), async (initial, steps) => {
        await h?.close();
        h = await startHarness();
        tally.runs++;
        let org = clone(initial);
        h.write({ 'm/main.yaml': manifestOf(org, []) });
        const first = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
        expect(first.code, first.stdout + first.stderr).toBe(0);
        await settled(h);
        bindIds(h, org);
        const marked = new Set<string>();
        updateMarks(org, marked);
        expect([...marked].filter((k) => !liveMarks(h!).has(k)), 'every mark the first apply asked for is on the live record').toEqual([]);

        const trail: string[] = [`initial ${JSON.stringify(initial)}`];
        for (const [step, flags] of steps) {
          const next = applyStep(org, step);
          const text = manifestOf(next.org, next.moved);
          trail.push(`step ${JSON.stringify(step)} flags ${JSON.stringify(flags)}`);
          h.write({ 'm/main.yaml': text });
          const flagArgs = [...(flags.allowDataLoss ? ['--allow-data-loss'] : []), ...(flags.allowReplace ? ['--allow-replace'] : [])];
          const guarded = protectedIds(next.org, marked);
          const before = await settled(h);
          const dbsBefore = databases(h);
          const froms = next.moved.map((m) => m.from).flatMap((a) => {
            const id = liveId(h!, a);
            if (id === undefined) return [];
            const depth = a.split('/').length;
            const level = depth === 1 ? 'project' : depth === 2 ? 'environment' : 'service';
            return [key(level, id)];
          });
          const plan = await h.run(['plan', 'm', '--json', ...flagArgs]);
          const context = `${trail.join('\n')}\n--- manifest:\n${text}\n--- plan stderr:\n${plan.stderr}`;
          // 0: a plan; 1: a plan error (a refused `moved` entry, a protected change); never a crash.
          expect([0, 1], context).toContain(plan.code);
          const planned = plan.code === 0 ? JSON.parse(plan.stdout) : undefined;
          const r = await h.run(['apply', 'm', '--auto-approve', ...FAST, ...flagArgs]);
          const after = await settled(h);
          const gone = disappeared(before, after);
          const ctx = `${context}\n--- apply (${r.code}):\n${r.stdout}${r.stderr}\ngone: ${gone.join(', ')}`;
          tally.steps++;

          expect(gone.filter((k) => guarded.has(k)), `${ctx}\nprotected: ${[...guarded].join(', ')}`).toEqual([]);
          expect(gone.filter((k) => froms.includes(k)), `${ctx}\nmoved froms: ${froms.join(', ')}`).toEqual([]);
          if (!flags.allowDataLoss) expect(gone.filter((k) => dbsBefore.has(k)), ctx).toEqual([]);
          tally.protectedKept += [...guarded].filter((k) => before.has(k)).length;
          tally.movedFromsKept += froms.length;

          if (r.code !== 0) {
            tally.refused++;
            if (planned) expect(planned.applyable, ctx).toBe(false);
            expect(gone, ctx).toEqual([]);
            // The organization stays as last applied: the next step starts from it.
            continue;
          }
          tally.applied++;
          expect(planned, ctx).toBeDefined();
          expect(planned.applyable, ctx).toBe(true);
          expect(gone.length, ctx).toBe(planned.summary.destroy);
          tally.objectsDestroyed += gone.length;
          tally.databasesDestroyed += gone.filter((k) => dbsBefore.has(k)).length;
          org = next.org;
          bindIds(h, org);
          updateMarks(org, marked);
          // A mark on an object deleted since (unmarked, then removed) has nothing left to check.
          const live = liveMarks(h);
          expect([...marked].filter((k) => after.has(k) && !live.has(k)), `${ctx}\nevery mark an apply asked for is on the live record`).toEqual([]);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    record('property-protect-moved', {
      title: 'Random organizations (1-2 projects of 1-2 environments, random services, everything pruned) with random `protect` marks, then random steps (mark or unmark an object, remove a project, an environment or a service, change a kind, rename with `moved` entries: valid, one `to` twice, one `from` twice, a cycle, a `from` naming nothing) with random flags: no protected object (declared or live-marked) lost or replaced, no `moved` `from` deleted, no database lost without --allow-data-loss, and the plan\'s destroyed count equal to what the emulator lost',
      file: 'test/safety/property-protect-moved.test.ts',
      command: 'npm test',
      figures: {
        runs: tally.runs,
        'steps applied with random flags': tally.steps,
        'applies done': tally.applied,
        'applies refused (a guard or a refused `moved` entry)': tally.refused,
        'protected objects kept (summed over steps)': tally.protectedKept,
        'live `moved` froms kept': tally.movedFromsKept,
        'objects destroyed (plan count = emulator loss)': tally.objectsDestroyed,
        'databases destroyed (all with --allow-data-loss)': tally.databasesDestroyed,
        'total (s)': ((Date.now() - started) / 1000).toFixed(1),
      },
    });
  }, 180_000);
});
