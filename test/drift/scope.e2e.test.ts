/**
 * A team's manifest in an organization shared with other teams, end to end over HTTP against the
 * emulator: `export --project team-a` writes `scope: declared`; `drift` then exits 0 however much
 * the other team's project and the organization-level objects the manifest does not declare change,
 * and still exits 2 for a change inside team-a (a variable changed, an environment or a service
 * created by hand). `plan` says once what it leaves out. A full export owns the whole organization:
 * a project added by hand is drift there.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startEmu, tempDir, type Emu } from '../export/helpers.js';

let emu: Emu;
let tmp: ReturnType<typeof tempDir>;
let org: string;
let cluster: string;
let registry: string;
const ids: Record<string, string> = {};

/** Two teams' projects, each with an environment, a container using its label group, and a project variable. */
async function buildSharedOrganization(): Promise<void> {
  const { api } = emu;
  org = emu.em.organizationId;
  cluster = ((await api('GET', `/organization/${org}/cluster`)).results as any[])[0].id;
  registry = ((await api('GET', `/organization/${org}/containerRegistry`)).results as any[])[0].id;
  await api('POST', `/organization/${org}/webhook`, { kind: 'STANDARD', target_url: 'https://ci.example.com/team-b', events: ['DEPLOYMENT_STARTED'], enabled: true });
  for (const team of ['a', 'b']) {
    const label = await api('POST', `/organization/${org}/labelsGroups`, { name: `team-${team}`, labels: [{ key: 'team', value: team, propagate_to_cloud_provider: false }] });
    const project = await api('POST', `/organization/${org}/project`, { name: `team-${team}` });
    const env = await api('POST', `/project/${project.id}/environment`, { name: 'prod', mode: 'PRODUCTION', cluster_id: cluster });
    const web = await api('POST', `/environment/${env.id}/container`, { name: 'web', registry_id: registry, image_name: 'acme/web', tag: '1', labels_groups: [{ id: label.id }] });
    const v = await api('POST', '/variable', { key: 'LOG_LEVEL', value: 'info', is_secret: false, variable_scope: 'PROJECT', variable_parent_id: project.id });
    Object.assign(ids, { [`project-${team}`]: project.id, [`env-${team}`]: env.id, [`web-${team}`]: web.id, [`var-${team}`]: v.id });
  }
}

async function drift(file: string): Promise<{ code: number; items: Array<{ address: string; drift: string }>; text: string }> {
  const r = await run(['drift', file, '--format', 'json'], emu.env());
  expect(r.code === 0 || r.code === 2, r.stdout + r.stderr).toBe(true);
  const report = JSON.parse(r.stdout);
  return { code: r.code, items: report.items.map((i: any) => ({ address: i.address, drift: i.drift })), text: r.stdout };
}

beforeAll(async () => {
  emu = await startEmu();
  tmp = tempDir();
  await buildSharedOrganization();
});

afterAll(async () => {
  await emu?.close();
  tmp?.cleanup();
});

describe('export --project: a manifest that manages one project of a shared organization', () => {
  let file: string;

  beforeAll(async () => {
    file = path.join(tmp.dir, 'team-a.yaml');
    const r = await run(['export', '--project', 'team-a', '--out', file], emu.env());
    expect(r.code, r.stderr).toBe(0);
  });

  it('says so in the manifest: scope: declared', () => {
    expect(readFileSync(file, 'utf8')).toMatch(/^version: 1\nscope: declared\n/m);
  });

  it('is in sync (drift exit 0), and plan says once, briefly, what it leaves out', async () => {
    const d = await run(['drift', file], emu.env());
    expect(d.code, d.stdout + d.stderr).toBe(0);
    const line = '1 project and 1 label group outside this manifest are not managed by it (scope: declared).';
    expect(d.stdout).toContain('No drift.');
    expect(d.stdout).toContain(line);
    const plan = await run(['plan', file, '--detailed-exitcode'], emu.env());
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout.split(line).length - 1).toBe(1);
    expect(plan.stdout).not.toContain('Not in the manifest');
    expect(plan.stdout).not.toContain('team-b');
    const json = JSON.parse((await run(['plan', file, '--format', 'json'], emu.env())).stdout);
    expect(json.out_of_scope).toEqual({ scope: 'declared', counts: { project: 1, labels_group: 1 } });
    expect(json.resource_changes.filter((c: any) => c.status === 'unmanaged')).toEqual([]);
    const md = await run(['plan', file, '--format', 'markdown'], emu.env());
    expect(md.stdout).toContain('outside this manifest');
  });

  it('stays in sync while the other team and the organization-level objects it does not declare change', async () => {
    const { api } = emu;
    await api('PUT', `/variable/${ids['var-b']}`, { key: 'LOG_LEVEL', value: 'debug' });
    await api('POST', `/project/${ids['project-b']}/environment`, { name: 'staging', mode: 'STAGING', cluster_id: cluster });
    await api('POST', `/environment/${ids['env-b']}/container`, { name: 'worker', registry_id: registry, image_name: 'acme/worker', tag: '2' });
    await api('POST', `/organization/${org}/project`, { name: 'team-c' });
    await api('POST', `/organization/${org}/labelsGroups`, { name: 'team-c', labels: [{ key: 'team', value: 'c', propagate_to_cloud_provider: false }] });
    await api('POST', `/organization/${org}/annotationsGroups`, { name: 'team-c', annotations: [{ key: 'a', value: 'b' }], scopes: ['PODS'] });
    await api('POST', `/organization/${org}/webhook`, { kind: 'STANDARD', target_url: 'https://ci.example.com/team-c', events: ['DEPLOYMENT_FAILED'], enabled: true });
    const receiver = await api('POST', '/alert-receivers', { organization_id: org, name: 'team-c-slack', type: 'SLACK', send_resolved: true, webhook_url: 'https://hooks.slack.com/services/T0/B0/c' });
    const d = await drift(file);
    expect(d.items).toEqual([]);
    expect(d.code).toBe(0);
    expect(JSON.parse(d.text).out_of_scope).toEqual({ scope: 'declared', counts: { project: 2, labels_group: 2 } });
    // Its webhook_url is a secret the API never returns: a full export below could not be in sync with it.
    await api('DELETE', `/alert-receivers/${receiver.id}`);
  });

  it('reports a variable changed inside the project (exit 2), and nothing else', async () => {
    await emu.api('PUT', `/variable/${ids['var-a']}`, { key: 'LOG_LEVEL', value: 'debug' });
    const d = await drift(file);
    expect(d.code).toBe(2);
    expect(d.items).toEqual([{ address: 'project.team-a/variable.LOG_LEVEL', drift: 'changed' }]);
    await emu.api('PUT', `/variable/${ids['var-a']}`, { key: 'LOG_LEVEL', value: 'info' });
    expect((await drift(file)).code).toBe(0);
  });

  it('reports an environment created by hand inside the project (exit 2)', async () => {
    const env = await emu.api('POST', `/project/${ids['project-a']}/environment`, { name: 'hand-made', mode: 'DEVELOPMENT', cluster_id: cluster });
    const d = await drift(file);
    expect(d.code).toBe(2);
    expect(d.items).toEqual([{ address: 'project.team-a/environment.hand-made', drift: 'unmanaged' }]);
    await emu.api('DELETE', `/environment/${env.id}`);
  });

  it('reports a service created by hand inside a declared environment (exit 2)', async () => {
    const svc = await emu.api('POST', `/environment/${ids['env-a']}/container`, { name: 'hand-made', registry_id: registry, image_name: 'acme/x', tag: '1' });
    const d = await drift(file);
    expect(d.code).toBe(2);
    expect(d.items).toEqual([{ address: 'project.team-a/environment.prod/container.hand-made', drift: 'unmanaged' }]);
    await emu.api('DELETE', `/container/${svc.id}`);
  });

  it('keeps the scope in the directory layout (organization.yaml)', async () => {
    const dir = path.join(tmp.dir, 'team-a-dir');
    const r = await run(['export', '--project', 'team-a', '--out', dir, '--layout', 'directory'], emu.env());
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'organization.yaml'), 'utf8')).toContain('\nscope: declared\n');
    const d = await run(['drift', dir], emu.env());
    expect(d.code, d.stdout + d.stderr).toBe(0);
  });

  it('without `scope` (an export made before it existed), other projects are still left out, but the label groups it declares make it own label groups', async () => {
    const old = path.join(tmp.dir, 'team-a-old.yaml');
    writeFileSync(old, readFileSync(file, 'utf8').replace('scope: declared\n', ''));
    const d = await drift(old);
    expect(d.items).toEqual([
      { address: 'labels_group.team-b', drift: 'unmanaged' },
      { address: 'labels_group.team-c', drift: 'unmanaged' },
    ]);
    expect(d.code).toBe(2);
  });
});

describe('a full export owns the whole organization', () => {
  it('is in sync, then reports a project and a webhook added by hand (exit 2)', async () => {
    const file = path.join(tmp.dir, 'all.yaml');
    const r = await run(['export', '--out', file], emu.env());
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^version: 1\nscope: organization\n/m);
    expect((await drift(file)).code).toBe(0);
    await emu.api('POST', `/organization/${org}/project`, { name: 'team-d' });
    await emu.api('POST', `/organization/${org}/webhook`, { kind: 'STANDARD', target_url: 'https://ci.example.com/team-d', events: ['DEPLOYMENT_FAILED'], enabled: true });
    const d = await drift(file);
    expect(d.code).toBe(2);
    expect(d.items).toEqual([
      { address: 'project.team-d', drift: 'unmanaged' },
      { address: 'webhook.https:%2F%2Fci.example.com%2Fteam-d', drift: 'unmanaged' },
    ]);
  });
});
