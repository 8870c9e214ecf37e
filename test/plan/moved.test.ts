/**
 * matchLive: desired objects matched to live ones through `moved` renames (pure, no API).
 */
import { describe, expect, it } from 'vitest';
import type { Address, DesiredGraph, DesiredResource, LiveResource, LiveState, MovedEntry, ResourceKind } from '../../src/model/resource.js';
import { parseAddress } from '../../src/model/resource.js';
import { matchLive, previousNames } from '../../src/plan/moved.js';

function parts(address: Address): { kind: ResourceKind; name: string; parent?: Address } {
  const segs = parseAddress(address);
  const last = segs[segs.length - 1]!;
  const i = address.lastIndexOf('/');
  return { kind: last.kind, name: last.name!, ...(i > 0 ? { parent: address.slice(0, i) } : {}) };
}

/** Desired objects in the order given (parents first), with the entries `from -> to`. */
function desired(addresses: Address[], moves: Array<[Address, Address]> = []): DesiredGraph {
  const resources = new Map<Address, DesiredResource>();
  for (const a of addresses) {
    const p = parts(a);
    resources.set(a, { address: a, ...p, attrs: { name: p.name }, dependsOn: [] });
  }
  const moved: MovedEntry[] = moves.map(([from, to], i) => ({ from, to, source: { file: 'm.yaml', start: { line: 10 + 2 * i, col: 5 } } }));
  return { resources, order: addresses, ...(moved.length > 0 ? { moved } : {}) };
}

function live(addresses: Address[], attrs: Record<Address, Record<string, unknown>> = {}): LiveState {
  const resources = new Map<Address, LiveResource>();
  addresses.forEach((a, i) => resources.set(a, { address: a, ...parts(a), id: `id-${i}`, attrs: attrs[a] ?? {}, record: {}, version: 'v1' }));
  return { organizationId: 'org', resources, requestCount: 0 };
}

const ENV = 'project.shop/environment.staging';

describe('matchLive', () => {
  it('matches a desired object to its own live name when there is no entry (case-insensitive kinds folded)', () => {
    const m = matchLive(desired(['project.Shop', 'project.Shop/environment.staging']), live(['project.shop', ENV]));
    expect([...m.liveOf]).toEqual([
      ['project.Shop', 'project.shop'],
      ['project.Shop/environment.staging', ENV],
    ]);
    expect(m.renamed.size).toBe(0);
    expect(m.diagnostics).toEqual([]);
  });

  it('matches the new address to the live object of the old one', () => {
    const m = matchLive(desired(['project.shop', ENV, `${ENV}/application.web`], [[`${ENV}/application.api`, `${ENV}/application.web`]]), live(['project.shop', ENV, `${ENV}/application.api`]));
    expect(m.liveOf.get(`${ENV}/application.web`)).toBe(`${ENV}/application.api`);
    expect([...m.renamed]).toEqual([[`${ENV}/application.web`, `${ENV}/application.api`]]);
    expect(m.diagnostics).toEqual([]);
  });

  it('moves the subtree of a renamed parent: children matched under it without entries of their own', () => {
    const m = matchLive(
      desired(['project.store', 'project.store/environment.prod', 'project.store/environment.prod/application.api', 'project.store/variable.A'], [
        ['project.shop', 'project.store'],
        ['project.store/environment.staging', 'project.store/environment.prod'],
      ]),
      live(['project.shop', ENV, `${ENV}/application.api`, 'project.shop/variable.A']),
    );
    expect(Object.fromEntries(m.liveOf)).toEqual({
      'project.store': 'project.shop',
      'project.store/environment.prod': ENV,
      'project.store/environment.prod/application.api': `${ENV}/application.api`,
      'project.store/variable.A': 'project.shop/variable.A',
    });
    // Only the objects whose own name changes are renames.
    expect([...m.renamed.keys()]).toEqual(['project.store', 'project.store/environment.prod']);
    expect(m.diagnostics).toEqual([]);
  });

  it('accepts an entry that spells the renamed parent by its old name', () => {
    const m = matchLive(
      desired(['project.store', 'project.store/environment.prod'], [
        ['project.shop', 'project.store'],
        [ENV, 'project.store/environment.prod'],
      ]),
      live(['project.shop', ENV]),
    );
    expect(m.liveOf.get('project.store/environment.prod')).toBe(ENV);
  });

  it('resolves a chain like Terraform: a -> b, b -> c takes whichever of b or a is live', () => {
    const g = desired(['project.shop', ENV, `${ENV}/application.c`], [
      [`${ENV}/application.a`, `${ENV}/application.b`],
      [`${ENV}/application.b`, `${ENV}/application.c`],
    ]);
    expect(previousNames(g.moved)(`${ENV}/application.c`).map((p) => p.name)).toEqual(['b', 'a']);
    const fromA = matchLive(g, live(['project.shop', ENV, `${ENV}/application.a`]));
    expect(fromA.liveOf.get(`${ENV}/application.c`)).toBe(`${ENV}/application.a`);
    expect(fromA.diagnostics).toEqual([]);
    const fromB = matchLive(g, live(['project.shop', ENV, `${ENV}/application.b`]));
    expect(fromB.liveOf.get(`${ENV}/application.c`)).toBe(`${ENV}/application.b`);
    // a -> b matched nothing: it is done, and can go.
    expect(fromB.diagnostics.map((d) => [d.severity, d.code, d.summary])).toEqual([['warning', 'moved.stale', `moved: nothing live at ${ENV}/application.a; the entry can be removed`]]);
  });

  it('refuses to merge: old and new both live is an error, and nothing is renamed', () => {
    const m = matchLive(desired(['project.shop', ENV, `${ENV}/application.web`], [[`${ENV}/application.api`, `${ENV}/application.web`]]), live(['project.shop', ENV, `${ENV}/application.api`, `${ENV}/application.web`]));
    expect(m.liveOf.get(`${ENV}/application.web`)).toBe(`${ENV}/application.web`);
    expect(m.renamed.size).toBe(0);
    expect(m.diagnostics).toHaveLength(1);
    expect(m.diagnostics[0]).toMatchObject({ severity: 'error', code: 'moved.would-merge', range: { file: 'm.yaml', start: { line: 10, col: 5 } } });
  });

  it('says an entry can be removed when the rename is done; when neither side is live, that it renames nothing', () => {
    const g = desired(['project.shop', ENV, `${ENV}/application.web`], [[`${ENV}/application.api`, `${ENV}/application.web`]]);
    const done = matchLive(g, live(['project.shop', ENV, `${ENV}/application.web`]));
    expect(done.diagnostics).toHaveLength(1);
    expect(done.diagnostics[0]).toMatchObject({ severity: 'warning', code: 'moved.stale', detail: `${ENV}/application.web exists live: the rename is done.` });
    const nothing = matchLive(g, live(['project.shop', ENV]));
    expect(nothing.diagnostics).toHaveLength(1);
    expect(nothing.diagnostics[0]).toMatchObject({
      severity: 'warning',
      code: 'moved.stale',
      summary: `moved: nothing live at ${ENV}/application.api, nor at ${ENV}/application.web: the entry renames nothing`,
      detail: `${ENV}/application.web is created. If it was never applied, the entry can be removed.`,
    });
    expect(nothing.liveOf.has(`${ENV}/application.web`)).toBe(false);
  });

  it('a `from` with a typo is not "done": it renames nothing, and the live object it probably meant is named', () => {
    const g = desired(['project.shop', ENV, `${ENV}/application.web`, `${ENV}/application.db`], [[`${ENV}/application.aip`, `${ENV}/application.web`]]);
    const m = matchLive(g, live(['project.shop', ENV, `${ENV}/application.api`, `${ENV}/application.db`, 'project.shop/environment.prod', 'project.shop/environment.prod/application.aip']));
    expect(m.liveOf.has(`${ENV}/application.web`)).toBe(false);
    expect(m.diagnostics).toHaveLength(1);
    expect(m.diagnostics[0]).toMatchObject({
      severity: 'warning',
      code: 'moved.stale',
      summary: `moved: nothing live at ${ENV}/application.aip, nor at ${ENV}/application.web: the entry renames nothing`,
      detail: `${ENV}/application.web is created. Did you mean \`from: ${ENV}/application.api\`? It is live and not in the manifest.`,
    });
  });

  it('renames a variable key (case-sensitive) and not another kind with the same name', () => {
    const m = matchLive(
      desired(['project.shop', 'project.shop/variable.LOG_LEVEL', `project.shop/environment.staging`, `${ENV}/application.api`], [['project.shop/variable.log_level', 'project.shop/variable.LOG_LEVEL']]),
      live(['project.shop', 'project.shop/variable.log_level', ENV, `${ENV}/container.api`]),
    );
    expect(m.liveOf.get('project.shop/variable.LOG_LEVEL')).toBe('project.shop/variable.log_level');
    expect(m.liveOf.has(`${ENV}/application.api`)).toBe(false);
  });

  it('refuses what the API cannot rename: an override, and a variable whose overrides would keep the old key', () => {
    const APP = `${ENV}/application.api`;
    const override = matchLive(
      desired(['project.shop', ENV, APP, `${APP}/variable.B`], [[`${APP}/variable.A`, `${APP}/variable.B`]]),
      live(['project.shop', ENV, APP, `${APP}/variable.A`], { [`${APP}/variable.A`]: { variable_type: 'OVERRIDE' } }),
    );
    expect(override.diagnostics.map((d) => [d.severity, d.code])).toEqual([['error', 'moved.override-key']]);
    expect(override.diagnostics[0]!.summary).toContain("the API cannot change an override's key");

    const overridden = matchLive(
      desired(['project.shop', 'project.shop/variable.B', ENV, APP], [['project.shop/variable.A', 'project.shop/variable.B']]),
      live(['project.shop', 'project.shop/variable.A', ENV, APP, `${APP}/variable.A`], { 'project.shop/variable.A': { variable_type: 'VALUE' }, [`${APP}/variable.A`]: { variable_type: 'OVERRIDE' } }),
    );
    expect(overridden.diagnostics.map((d) => [d.severity, d.code])).toEqual([['error', 'moved.overridden-variable']]);
    expect(overridden.diagnostics[0]!.summary).toContain(`(${APP}/variable.A) that cannot follow a new key`);
  });
});
