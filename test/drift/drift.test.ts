/**
 * `driftless drift` end to end on the emulator: after an apply the platform is in sync (exit 0);
 * each kind of out-of-band change (a field, a variable value, a secret replaced, a deleted service,
 * a new unmanaged service) is found with exit 2 and attributed to a change outside Git; a change in
 * Git not applied yet is told apart; the fingerprint is stable; the markdown body escapes names.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startEmu, tempDir, type Emu, type RunResult } from '../export/helpers.js';

const MANIFEST = (cpu: number) => `version: 1
projects:
  - name: drift-shop
    variables:
      - key: DB_PASSWORD
        secret: true
        value: \${env:DB_PASSWORD}
    environments:
      - name: production
        cluster: production-cluster
        mode: PRODUCTION
        variables:
          - key: LOG_LEVEL
            value: info
        services:
          - name: api
            type: application
            git_repository:
              url: https://github.com/acme/api.git
            dockerfile_path: Dockerfile
            cpu: ${cpu}
          - name: worker
            type: container
            registry: docker-hub
            image_name: acme/worker
            tag: "1.0"
`;

let emu: Emu;
const tmp = tempDir('driftless-drift-');
const file = path.join(tmp.dir, 'driftless.yaml');
let env: NodeJS.ProcessEnv;
const ids: Record<string, string> = {};

const drift = (...extra: string[]): Promise<RunResult> => run(['drift', file, ...extra], env, tmp.dir);
const driftJson = async () => {
  const r = await drift('--format', 'json');
  return { ...r, report: JSON.parse(r.stdout) };
};
async function reconcile(): Promise<void> {
  const r = await run(['apply', file, '--auto-approve'], env, tmp.dir);
  expect(r.code, r.stderr + r.stdout).toBe(0);
  expect((await drift()).code).toBe(0);
}

beforeAll(async () => {
  emu = await startEmu();
  env = emu.env({ DB_PASSWORD: 'initial-db-password' });
  writeFileSync(file, MANIFEST(500));
  const applied = await run(['apply', file, '--auto-approve'], env, tmp.dir);
  expect(applied.code, applied.stderr + applied.stdout).toBe(0);
  const org = emu.em.organizationId;
  const project = ((await emu.api('GET', `/organization/${org}/project`)).results as any[]).find((p) => p.name === 'drift-shop');
  const envRec = ((await emu.api('GET', `/project/${project.id}/environment`)).results as any[])[0];
  ids.env = envRec.id;
  ids.project = project.id;
  for (const s of (await emu.api('GET', `/environment/${envRec.id}/services`)).results as any[]) ids[s.name] = s.id;
}, 60_000);

afterAll(async () => {
  await emu.close();
  tmp.cleanup();
});

async function variableId(scope: string, parent: string, key: string): Promise<string> {
  const list = (await emu.api('GET', `/variable?parent_id=${parent}&scope=${scope}`)).results as any[];
  return list.find((v) => v.key === key && v.scope === scope).id;
}

describe('driftless drift', () => {
  it('exits 0 with "No drift" right after an apply', async () => {
    const r = await drift();
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain('No drift.');
    // A cron job needs only a Read token.
    expect((await run(['drift', file], { ...emu.env({ DB_PASSWORD: 'initial-db-password' }, 'READ') }, tmp.dir)).code).toBe(0);
    const j = await driftJson();
    expect(j.report).toMatchObject({ in_sync: true, items: [], summary: { drifted: 0 } });
  });

  it('finds a field changed in the console (exit 2), attributed to a change outside Git, and apply reconciles it', async () => {
    const app = await emu.api('GET', `/application/${ids.api}`);
    await emu.api('PUT', `/application/${ids.api}`, { name: app.name, git_repository: { url: app.git_repository.url }, cpu: 1000, healthchecks: app.healthchecks ?? {} });
    const j = await driftJson();
    expect(j.code).toBe(2);
    const item = j.report.items.find((i: any) => i.address === 'project.drift-shop/environment.production/application.api');
    expect(item).toMatchObject({ drift: 'changed', origin: 'outside_git', fields: [{ field: 'cpu', live: 1000, git: 500 }] });
    expect(item.since).toBe((await emu.api('GET', `/application/${ids.api}`)).updated_at);
    const human = await drift();
    expect(human.code).toBe(2);
    expect(human.stdout).toContain('cpu: live 1000, Git 500');
    expect(human.stdout).toContain(`driftless apply ${file}`);
    await reconcile();
  }, 30_000);

  it('finds a variable value edited in the console', async () => {
    const id = await variableId('ENVIRONMENT', ids.env!, 'LOG_LEVEL');
    await emu.api('PUT', `/variable/${id}`, { key: 'LOG_LEVEL', value: 'debug' });
    const j = await driftJson();
    expect(j.code).toBe(2);
    expect(j.report.items).toEqual([
      expect.objectContaining({ address: 'project.drift-shop/environment.production/variable.LOG_LEVEL', drift: 'changed', origin: 'outside_git', fields: [{ field: 'value', live: 'debug', git: 'info' }] }),
    ]);
    await reconcile();
  }, 30_000);

  it('finds a secret replaced in the console although the API never returns its value, and never prints a value', async () => {
    const id = await variableId('PROJECT', ids.project!, 'DB_PASSWORD');
    await emu.api('PUT', `/variable/${id}`, { key: 'DB_PASSWORD', value: 'typed-in-the-console' });
    const j = await driftJson();
    expect(j.code).toBe(2);
    expect(j.report.items).toEqual([
      expect.objectContaining({ address: 'project.drift-shop/variable.DB_PASSWORD', drift: 'changed', origin: 'outside_git', fields: [{ field: 'value', sensitive: true }] }),
    ]);
    for (const out of [j.stdout, (await drift()).stdout, (await drift('--format', 'markdown')).stdout]) {
      expect(out).not.toContain('typed-in-the-console');
      expect(out).not.toContain('initial-db-password');
    }
    await reconcile();
  }, 30_000);

  it('finds a service deleted outside Git (it is in the deployment history) and a new unmanaged service', async () => {
    await emu.api('POST', `/environment/${ids.env}/service/delete`, { container_ids: [ids.worker] });
    for (let i = 0; i < 200 && ((await emu.api('GET', `/environment/${ids.env}/services`)).results as any[]).some((s) => s.name === 'worker'); i++) await new Promise((r) => setTimeout(r, 20));
    const registry = ((await emu.api('GET', `/organization/${emu.em.organizationId}/containerRegistry`)).results as any[])[0].id;
    await emu.api('POST', `/environment/${ids.env}/container`, { name: 'rogue', registry_id: registry, image_name: 'acme/rogue', tag: 'latest' });
    const j = await driftJson();
    expect(j.code).toBe(2);
    expect(j.report.items.map((i: any) => [i.address, i.drift, i.origin])).toEqual([
      ['project.drift-shop/environment.production/container.rogue', 'unmanaged', 'outside_git'],
      ['project.drift-shop/environment.production/container.worker', 'missing', 'outside_git'],
    ]);
    // The same drift has the same fingerprint on every run.
    expect((await driftJson()).report.fingerprint).toBe(j.report.fingerprint);
    const md = await drift('--format', 'markdown');
    expect(md.code).toBe(2);
    expect(md.stdout).toContain(`<!-- driftless-drift fingerprint=${j.report.fingerprint} -->`);
    expect(md.stdout).toContain('driftless apply');
    await emu.api('DELETE', `/container/${(((await emu.api('GET', `/environment/${ids.env}/services`)).results as any[]).find((s) => s.name === 'rogue')).id}`);
    await reconcile();
  }, 30_000);

  it('tells a change made in Git and not applied yet apart from one made outside Git', async () => {
    writeFileSync(file, MANIFEST(750));
    const j = await driftJson();
    expect(j.code).toBe(2);
    expect(j.report.items).toEqual([
      expect.objectContaining({ address: 'project.drift-shop/environment.production/application.api', drift: 'changed', origin: 'git', fields: [{ field: 'cpu', live: 500, git: 750 }] }),
    ]);
    expect(j.report.items[0].source).toMatchObject({ file: 'driftless.yaml' });
    writeFileSync(file, MANIFEST(500));
    expect((await drift()).code).toBe(0);
  }, 30_000);

  it('exits 1 with a clear message on an invalid manifest or a missing token', async () => {
    const bad = path.join(tmp.dir, 'bad.yaml');
    writeFileSync(bad, 'version: 1\nprojects: 3\n');
    const r = await run(['drift', bad], env, tmp.dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('bad.yaml');
    const noToken = await run(['drift', file], { DRIFTLESS_API_URL: emu.em.url, DB_PASSWORD: 'x' }, tmp.dir);
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('DRIFTLESS_API_TOKEN');
  });
});
