/** The plan's safety guards as pure functions (src/plan/guards.ts). */
import { describe, expect, it } from 'vitest';
import { blockedRoots, blockingFlags, blockingOf, guardChange, hasBeenDeployed, inheritedRequirements } from '../../src/plan/guards.js';
import type { LiveResource } from '../../src/model/resource.js';
import type { GuardRequirement, ResourceChange } from '../../src/plan/types.js';

const change = (): ResourceChange => ({ address: 'project.p/environment.e/database.db', kind: 'database', name: 'db', actions: ['delete', 'create'], status: 'planned', reasons: [], fields: [], depends_on: [] });
const REPLACE: GuardRequirement = { guard: 'allow_replace', reason: 'replaces the deployed database "db"' };
const DATA: GuardRequirement = { guard: 'allow_data_loss', reason: 'destroys the data of a database' };

describe('guardChange', () => {
  it('blocks a change whose flag is missing, with one reason per missing flag, data loss first', () => {
    const c = change();
    guardChange(c, [REPLACE, DATA, REPLACE], { allow_data_loss: false, allow_replace: false });
    expect(c.status).toBe('blocked');
    expect(c.requires).toEqual([DATA, REPLACE]);
    expect(c.reasons).toEqual(['destroys the data of a database: re-run with --allow-data-loss to permit it', 'replaces the deployed database "db": re-run with --allow-replace to permit it']);
    expect(blockingOf(c, { allow_data_loss: false, allow_replace: false })).toEqual({ reasons: [DATA.reason, REPLACE.reason], flags: ['--allow-data-loss', '--allow-replace'] });
    expect(blockingOf(c, { allow_data_loss: true })).toEqual({ reasons: [REPLACE.reason], flags: ['--allow-replace'] });
  });

  it('records the guards of an allowed change without blocking it', () => {
    const c = change();
    guardChange(c, [REPLACE], { allow_data_loss: false, allow_replace: true });
    expect(c).toMatchObject({ status: 'planned', reasons: [], requires: [REPLACE] });
    expect(blockingOf(c, { allow_replace: true })).toBeUndefined();
  });

  it('leaves a change no guard concerns untouched', () => {
    const c = change();
    guardChange(c, [], { allow_data_loss: false, allow_replace: false });
    expect(c).toEqual(change());
  });
});

describe('inheritedRequirements', () => {
  it("names the parent once, however deep the child", () => {
    const env: GuardRequirement = { guard: 'allow_replace', reason: 'replaces environment "e" with everything in it' };
    const child = inheritedRequirements([env], 'project.p/environment.e');
    expect(child).toEqual([{ guard: 'allow_replace', reason: 'goes with project.p/environment.e, which replaces environment "e" with everything in it' }]);
    expect(inheritedRequirements(child, 'project.p/environment.e/application.api')).toEqual(child);
  });
});

describe('hasBeenDeployed', () => {
  const live = (status?: LiveResource['status']): LiveResource => ({ address: 'a', kind: 'application', name: 'a', id: '1', attrs: {}, record: {}, version: 'v', ...(status ? { status } : {}) });
  it('is false only for a service whose status says it never was', () => {
    expect(hasBeenDeployed(live({ service_deployment_status: 'NEVER_DEPLOYED' }))).toBe(false);
    expect(hasBeenDeployed(live({ service_deployment_status: 'UP_TO_DATE' }))).toBe(true);
    expect(hasBeenDeployed(live({ service_deployment_status: 'NEVER_DEPLOYED', last_deployment_date: '2026-11-25T10:00:00Z' }))).toBe(true);
    // Unknown: it may be running.
    expect(hasBeenDeployed(live())).toBe(true);
    // A status read without either field: nothing says it was ever deployed.
    expect(hasBeenDeployed(live({}))).toBe(false);
    expect(hasBeenDeployed(live({ last_deployment_date: '2026-11-25T10:00:00Z' }))).toBe(true);
  });
});

describe('blockingFlags', () => {
  it('lists each flag once, in a stable order, for the blocked changes only', () => {
    const a = change();
    guardChange(a, [REPLACE], { allow_data_loss: false, allow_replace: false });
    const b = change();
    guardChange(b, [DATA], { allow_data_loss: false, allow_replace: false });
    const c = change();
    guardChange(c, [REPLACE], { allow_data_loss: false, allow_replace: true });
    expect(blockingFlags([a, b, c], { allow_data_loss: false, allow_replace: false })).toEqual(['--allow-data-loss', '--allow-replace']);
    expect(blockingFlags([a], {})).toEqual(['--allow-replace']);
  });
});

describe('blockedRoots', () => {
  it('reports what only goes with a blocked replacement under it, and a child with a cause of its own on its own', () => {
    const none = { allow_data_loss: false, allow_replace: false };
    const envReq: GuardRequirement = { guard: 'allow_replace', reason: 'replaces environment "e" with everything in it' };
    const env: ResourceChange = { ...change(), address: 'project.p/environment.e', kind: 'environment', name: 'e', parent: 'project.p' };
    guardChange(env, [envReq], none);
    const inherited = inheritedRequirements(env.requires!, env.address);
    const api: ResourceChange = { ...change(), address: 'project.p/environment.e/application.api', kind: 'application', name: 'api', parent: env.address };
    guardChange(api, inherited, none);
    const stray: ResourceChange = { ...change(), address: 'project.p/environment.e/application.api/variable.X', kind: 'variable', name: 'X', actions: ['delete'], via_parent: api.address, parent: api.address };
    guardChange(stray, inheritedRequirements(api.requires!, api.address), none);
    const db: ResourceChange = { ...change(), address: 'project.p/environment.e/database.db', parent: env.address };
    guardChange(db, [...inherited, DATA], none);
    const roots = blockedRoots([env, api, stray, db], none);
    expect(roots.map((r) => [r.change.address, r.following])).toEqual([
      ['project.p/environment.e', 2],
      ['project.p/environment.e/database.db', 0],
    ]);
    // With the data loss allowed, the database only goes with its environment.
    expect(blockedRoots([env, api, stray, db], { allow_data_loss: true }).map((r) => [r.change.address, r.following])).toEqual([['project.p/environment.e', 3]]);
  });
});

describe('blockingOf: the flags a drift or a saved plan names', () => {
  it('names the flags of the guards a blocked change requires that were not given, in the order recorded', () => {
    const c = change();
    guardChange(c, [REPLACE, DATA], { allow_data_loss: false, allow_replace: false });
    expect(blockingOf(c, {})!.flags).toEqual(['--allow-data-loss', '--allow-replace']);
    expect(blockingOf(c, { allow_data_loss: true })!.flags).toEqual(['--allow-replace']);
    expect(blockingOf(change(), {})).toBeUndefined();
  });
});

describe('blockingOf a plan made before guards were recorded', () => {
  it('reads a blocked change without requirements as blocked on data loss, keeping its own reasons', () => {
    const legacy: ResourceChange = { ...change(), status: 'blocked', reasons: ['destroys the data of database "db"'] };
    expect(blockingOf(legacy, {})).toEqual({ reasons: ['destroys the data of database "db"'], flags: ['--allow-data-loss'] });
    expect(blockingOf({ ...change(), status: 'blocked' }, {})).toEqual({ reasons: ['destroys the data of a database'], flags: ['--allow-data-loss'] });
    // The reasons returned are a copy: the plan's own list is not shared.
    const got = blockingOf(legacy, {})!;
    got.reasons.push('x');
    expect(legacy.reasons).toEqual(['destroys the data of database "db"']);
  });
});

describe('blockedRoots on a single blocked change', () => {
  it('is the change itself, followed by nothing, and ignores what is not blocked', () => {
    const none = { allow_data_loss: false, allow_replace: false };
    const db = change();
    guardChange(db, [DATA], none);
    const planned: ResourceChange = { ...change(), address: 'project.p/environment.e/database.other' };
    expect(blockedRoots([planned, db], none)).toEqual([{ change: db, following: 0 }]);
    expect(blockedRoots([planned], none)).toEqual([]);
  });

  it('does not climb to a parent that is not blocked, nor to one that is not in the plan', () => {
    const none = { allow_data_loss: false, allow_replace: false };
    const env: ResourceChange = { ...change(), address: 'project.p/environment.e', kind: 'environment', name: 'e' };
    const api: ResourceChange = { ...change(), address: 'project.p/environment.e/application.api', kind: 'application', name: 'api', parent: env.address };
    guardChange(api, inheritedRequirements([REPLACE], env.address), none);
    expect(blockedRoots([env, api], none).map((r) => [r.change.address, r.following])).toEqual([[api.address, 0]]);
    expect(blockedRoots([api], none).map((r) => [r.change.address, r.following])).toEqual([[api.address, 0]]);
  });
});

describe('blockedRoots on a plan made before guards were recorded', () => {
  it('keeps each blocked change without requirements as its own root, even under a blocked parent', () => {
    const env: ResourceChange = { ...change(), address: 'project.p/environment.e', kind: 'environment', name: 'e', status: 'blocked' };
    const db: ResourceChange = { ...change(), parent: env.address, status: 'blocked' };
    expect(blockedRoots([env, db], {}).map((r) => [r.change.address, r.following])).toEqual([
      [env.address, 0],
      [db.address, 0],
    ]);
  });
});
