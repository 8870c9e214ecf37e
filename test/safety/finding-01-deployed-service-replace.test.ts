/**
 * Finding 1, the class behind it: no implicit destruction of running things. A service replaced
 * because an immutable field changed (a database's type) is blocked when the live state says it
 * has been deployed, until --allow-replace is given; a service never deployed runs nothing, so
 * only its own guard (a database's data: --allow-data-loss) holds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';
import { destroyedCount, disappeared, ownedObjects, previewManifest, settledObjects } from './guards-support.js';

let h: Harness;
afterEach(async () => h?.close());

const apply = (...extra: string[]) => h.run(['apply', 'm', '--auto-approve', ...FAST, ...extra]);

const database = (type: 'POSTGRESQL' | 'MYSQL', deploy = true) =>
  [
    '          - type: database',
    '            name: db',
    `            database_type: ${type}`,
    `            version: "${type === 'POSTGRESQL' ? '16' : '8.0'}"`,
    '            mode: CONTAINER',
    '            storage: 10',
    ...(deploy ? [] : ['            deploy: false']),
    '',
  ].join('\n');

const dbOf = (emu: Harness['emu']) => Object.values(emu.state.services).find((s) => s.name === 'db')!;

describe('finding 1: replacing a deployed service', () => {
  it('finding 1: a deployed database whose type changed is blocked without --allow-replace, and replaced with it', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': previewManifest('staging-cluster', { extraServices: database('POSTGRESQL') }) });
    expect((await apply()).code).toBe(0);
    const old = dbOf(h.emu);
    expect(h.emu.state.serviceStatuses[old.id]!.service_deployment_status).not.toBe('NEVER_DEPLOYED');
    const before = ownedObjects(h.emu);
    h.write({ 'm/main.yaml': previewManifest('staging-cluster', { extraServices: database('MYSQL') }) });

    const plan = await h.run(['plan', 'm', '--allow-data-loss']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('replaces the deployed database "db": re-run with --allow-replace to permit it');
    expect(plan.stdout).toContain('# BLOCKED: needs --allow-replace');
    expect(plan.stdout).toContain('Plan: 0 to add, 0 to change, 0 to destroy, 0 to deploy; 1 blocked (not done, not counted).');

    const refused = await apply('--allow-data-loss');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('project.shop/environment.preview/database.db');
    expect(refused.stderr).toContain('--allow-replace');
    expect(dbOf(h.emu).id).toBe(old.id);
    expect(await settledObjects(h.emu)).toEqual(before);

    const done = await apply('--allow-data-loss', '--allow-replace');
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(dbOf(h.emu).id).not.toBe(old.id);
    expect(dbOf(h.emu).type).toBe('MYSQL');
    const gone = disappeared(before, await settledObjects(h.emu));
    expect(gone).toEqual([`service:${old.id}`]);
    expect(destroyedCount(done.stdout)).toBe(gone.length);
  });

  it('finding 1: a database never deployed runs nothing: replacing it needs only --allow-data-loss', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': previewManifest('staging-cluster', { extraServices: database('POSTGRESQL', false) }) });
    expect((await apply()).code).toBe(0);
    const old = dbOf(h.emu);
    expect(h.emu.state.serviceStatuses[old.id]!.service_deployment_status).toBe('NEVER_DEPLOYED');
    h.write({ 'm/main.yaml': previewManifest('staging-cluster', { extraServices: database('MYSQL', false) }) });

    const plan = await h.run(['plan', 'm']);
    expect(plan.stdout).toContain('# BLOCKED: needs --allow-data-loss\n');
    expect(plan.stdout).not.toContain('--allow-replace');
    const done = await apply('--allow-data-loss');
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(dbOf(h.emu).id).not.toBe(old.id);
    expect(destroyedCount(done.stdout)).toBe(1);
  });
});
