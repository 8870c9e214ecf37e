/**
 * End to end: adopting an organization built by hand (running services, secrets driftless never
 * wrote) with `export` then `apply --no-deploy`, the documented path. The adoption writes nothing
 * and deploys nothing (the emulator's deployment histories do not move), with a token that cannot
 * deploy; the secrets nobody can know are not rewritten, and their variables need not be set. With
 * a first change in the same run, `apply --no-deploy` (a saved plan too) writes it and lists the
 * deploys it leaves; the next plan shows exactly those deploys as pending and nothing else; a plain
 * apply then deploys them and the plan is clean.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { run, startEmu, tempDir, waitForDeployments, type Emu } from '../export/helpers.js';
import { buildOrganizationByHand, type HandBuiltOrg } from '../export/org-fixture.js';

let emu: Emu;
let org: HandBuiltOrg;
const tmp = tempDir('driftless-adoption-');
const dir = path.join(tmp.dir, 'infra');
/** The directory layout: each environment of the project in its own file. */
const ENVIRONMENT_FILE = (name: string) => path.join(dir, `project-shop.${name}.yaml`);
const EXPORTED_FILES = () => readdirSync(dir).map((f) => readFileSync(path.join(dir, f), 'utf8')).join('\n');
const PROD = 'project.shop/environment.production';
const STAGING = 'project.shop/environment.staging';

beforeAll(async () => {
  emu = await startEmu();
  org = await buildOrganizationByHand(emu);
  await waitForDeployments(emu, Object.values(org.envIds));
}, 60_000);

afterAll(async () => {
  await emu.close();
  tmp.cleanup();
});

/** Entries of each environment's deployment history: what has ever been deployed there. */
async function histories(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, id] of Object.entries(org.envIds)) out[name] = ((await emu.api('GET', `/environment/${id}/deploymentHistoryV2?pageSize=100`)).results as unknown[]).length;
  return out;
}

/** The variables of the secrets driftless never wrote: all of this organization's, none set. */
const noSecrets = () => emu.env();

async function planJson(env = noSecrets()) {
  const r = await run(['plan', dir, '--json'], env);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const deploys = (doc: any) => (doc.resource_changes as any[]).filter((c) => c.change.deploy).map((c) => [c.address, c.change.deploy.reasons]);
const configChanges = (doc: any) => (doc.resource_changes as any[]).filter((c) => c.change.actions[0] !== 'no-op').map((c) => c.address);

describe('export, then apply --no-deploy', () => {
  it('adopts the organization: nothing written, nothing deployed, no secret rewritten, and the plan is clean', async () => {
    const exp = await run(['export', '--out', dir, '--layout', 'directory'], noSecrets());
    expect(exp.code, exp.stderr).toBe(0);
    for (const v of Object.values(org.secrets)) expect(EXPORTED_FILES() + exp.stderr).not.toContain(v);
    const before = await histories();
    const secretBefore = await emu.api('GET', `/variable?parent_id=${org.projectId}&scope=PROJECT`);

    // A Write token: adopting needs no Deploy scope.
    const adopt = await run(['apply', dir, '--no-deploy', '--auto-approve', '--poll-interval', '20'], emu.env({}, 'WRITE'));
    expect(adopt.code, adopt.stdout + adopt.stderr).toBe(0);
    // No change: the one write is the protect mark the export puts on the database (issue 18),
    // driftless's note in its description, said in one line and recorded on it.
    expect(adopt.stdout).toContain('No changes.');
    expect(adopt.stdout).not.toContain('will be updated in place');
    expect(adopt.stdout).toContain('Apply also records the protect mark on 1 object (project.shop/environment.production/database.orders-db)');
    expect(adopt.stdout).toContain('Apply complete! Resources: 0 added, 0 changed, 0 destroyed; 0 deployed');
    const db = (await emu.api('GET', `/environment/${org.envIds.production}/database`)).results.find((d: any) => d.name === 'orders-db');
    expect(db.description).toContain('[driftless:v1 protect=true]');

    expect(await histories()).toEqual(before);
    // The secret is as the console wrote it: same record, same description (no marker written).
    expect(await emu.api('GET', `/variable?parent_id=${org.projectId}&scope=PROJECT`)).toEqual(secretBefore);
    const doc = await planJson();
    expect(doc.summary).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0 });
    // Recorded: nothing left to record.
    expect(doc.summary.marks).toBeUndefined();
    expect(doc.ignored_fields).toBeGreaterThan(0);
  }, 60_000);

  it('with a first change: writes it, deploys nothing, lists the deploys; the next plan shows exactly those as pending', async () => {
    // The team's first edits: more memory for the production web container, a flag for staging.
    const edit = (name: string, change: (doc: YAML.Document, env: any) => void) => {
      const doc = YAML.parseDocument(readFileSync(ENVIRONMENT_FILE(name), 'utf8'));
      change(doc, (doc.toJS() as any).projects[0].environments[0]);
      writeFileSync(ENVIRONMENT_FILE(name), doc.toString());
    };
    edit('production', (doc, env) => {
      const web = env.services.findIndex((s: any) => s.name === 'web');
      expect(env.services[web].memory).toBe(256);
      doc.setIn(['projects', 0, 'environments', 0, 'services', web, 'memory'], 384);
    });
    edit('staging', (doc, env) => doc.setIn(['projects', 0, 'environments', 0, 'variables'], [...(env.variables ?? []), { key: 'FEATURE_FLAG', value: 'on' }]));

    const planned = await planJson();
    const expected = [
      [`${PROD}/container.web`, ['configuration changed (memory)']],
      [`${STAGING}/container.web`, ['variable FEATURE_FLAG changed']],
    ];
    expect(deploys(planned)).toEqual(expected);

    // The saved-plan path: plan --out, then apply PLANFILE --no-deploy.
    const planFile = path.join(tmp.dir, 'first.plan');
    expect((await run(['plan', dir, '--out', planFile], noSecrets())).code).toBe(0);
    const before = await histories();
    const json = await run(['apply', planFile, '--no-deploy', '--json', '--poll-interval', '20'], noSecrets());
    expect(json.code, json.stdout + json.stderr).toBe(0);
    const events = json.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(events.filter((e) => e.type === 'deploy_pending').map((e) => [e.address, e.reasons])).toEqual(expected);
    expect(events.filter((e) => e.type === 'apply_start').map((e) => e.action)).not.toContain('deploy');
    expect(events.find((e) => e.type === 'change_summary' && e.operation === 'apply')).toMatchObject({ add: 1, change: 1, deploy: 0, pending_deploy: 2 });

    // The configuration is written, nothing was deployed.
    expect(await histories()).toEqual(before);
    const live = (await emu.api('GET', `/environment/${org.envIds.production}/services`)).results as any[];
    expect(live.find((s) => s.name === 'web').memory).toBe(384);

    // The next plan: no configuration change, exactly those two deploys, now said pending.
    const next = await planJson();
    expect(configChanges(next)).toEqual([]);
    expect(deploys(next)).toEqual([
      [`${PROD}/container.web`, ['configuration changed since its last deployment']],
      [`${STAGING}/container.web`, ['configuration changed since its last deployment']],
    ]);
    const drift = await run(['drift', dir, '--format', 'json'], noSecrets());
    expect(drift.code).toBe(2);
    expect(JSON.parse(drift.stdout).items.map((i: any) => [i.address, i.drift])).toEqual([
      [`${PROD}/container.web`, 'not_deployed'],
      [`${STAGING}/container.web`, 'not_deployed'],
    ]);

    // A human apply --no-deploy says the same, once: nothing new is written, the two stay pending.
    const human = await run(['apply', dir, '--no-deploy', '--auto-approve'], noSecrets());
    expect(human.code, human.stdout + human.stderr).toBe(0);
    expect(human.stdout).toContain('--no-deploy: the 2 deploys above are not made; they stay pending (the next plan shows them).');
    expect(human.stdout).toContain('Not deployed (--no-deploy): 2 services the plan would have deployed; the next plan shows them as to deploy:');
    expect(human.stdout).toContain(`~ ${PROD}/container.web: configuration changed since its last deployment`);
    expect(human.stdout).toContain('0 deployed, 2 not deployed (--no-deploy).');
    expect(await histories()).toEqual(before);

    // A plain apply deploys them; then the plan is clean.
    const deployed = await run(['apply', dir, '--auto-approve', '--poll-interval', '20'], noSecrets());
    expect(deployed.code, deployed.stdout + deployed.stderr).toBe(0);
    expect(deployed.stdout).toContain('2 deployed.');
    const after = await histories();
    expect(after.production).toBeGreaterThan(before.production!);
    expect(after.staging).toBeGreaterThan(before.staging!);
    const clean = await run(['plan', dir, '--detailed-exitcode'], noSecrets());
    expect(clean.code, clean.stdout).toBe(0);
  }, 60_000);
});
