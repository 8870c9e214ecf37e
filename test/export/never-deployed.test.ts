/**
 * The export guarantee for services that exist but were never deployed: an organization built by
 * hand through the API, some services created and never deployed, is exported with `deploy: false`
 * on exactly those services, and `plan` on the export says `No changes.` (without it the plan would
 * deploy them: "never deployed"). Taking `deploy: false` out of the manifest plans their deploy.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startEmu, tempDir, waitForDeployments, type Emu } from './helpers.js';

let emu: Emu;
const tmp = tempDir('driftless-export-never-deployed-');

beforeAll(async () => {
  emu = await startEmu();
  const { api } = emu;
  const org = emu.em.organizationId;
  const clusters = (await api('GET', `/organization/${org}/cluster`)).results as any[];
  const cluster = clusters.find((c) => c.name === 'production-cluster').id as string;
  const registry = ((await api('GET', `/organization/${org}/containerRegistry`)).results as any[]).find((r) => r.name === 'docker-hub').id as string;
  const project = await api('POST', `/organization/${org}/project`, { name: 'lab', description: 'built by hand' });
  // "draft": services created in the console and never deployed.
  const draft = await api('POST', `/project/${project.id}/environment`, { name: 'draft', mode: 'DEVELOPMENT', cluster_id: cluster });
  await api('POST', `/environment/${draft.id}/container`, { name: 'web', registry_id: registry, image_name: 'acme/web', tag: '1.0.0', cpu: 500, memory: 256 });
  await api('POST', `/environment/${draft.id}/application`, { name: 'api', git_repository: { url: 'https://github.com/acme/api.git', branch: 'main' }, build_mode: 'DOCKER', dockerfile_path: 'Dockerfile' });
  await api('POST', `/environment/${draft.id}/database`, { name: 'db', type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', accessibility: 'PRIVATE', cpu: 500, memory: 512, storage: 10 });
  // "running": the same kind of service, deployed.
  const running = await api('POST', `/project/${project.id}/environment`, { name: 'running', mode: 'DEVELOPMENT', cluster_id: cluster });
  await api('POST', `/environment/${running.id}/container`, { name: 'web', registry_id: registry, image_name: 'acme/web', tag: '1.0.0', cpu: 500, memory: 256 });
  await api('POST', `/environment/${running.id}/deploy`);
  await waitForDeployments(emu, [running.id]);
}, 60_000);

afterAll(async () => {
  await emu.close();
  tmp.cleanup();
});

describe('driftless export: services never deployed', () => {
  it('are written with deploy: false, the plan of the export has no changes, and without deploy: false the plan deploys them', async () => {
    const file = path.join(tmp.dir, 'org.yaml');
    const exp = await run(['export', '--project', 'lab', '--out', file], emu.env());
    expect(exp.code, exp.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    // Exactly the three services of "draft" (container, application, database), not the deployed one.
    expect(text.match(/^\s*deploy: false$/gm)).toHaveLength(3);
    const draft = text.slice(text.indexOf('name: draft'), text.indexOf('name: running'));
    expect(draft.match(/^\s*deploy: false$/gm)).toHaveLength(3);
    expect(text.slice(text.indexOf('name: running'))).not.toMatch(/^\s*deploy: false$/m);

    // The export protects the database (issue 18): its plan has no changes, and its first apply
    // records that mark on it (driftless's note, not a change), deploying nothing.
    expect(draft).toMatch(/name: db\n\s+type: database\n(?:.*\n)*?\s+protect: true\n/);
    const first = await run(['plan', file, '--detailed-exitcode'], emu.env(), tmp.dir);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toContain('No changes.');
    expect(first.stdout).toContain('Apply also records the protect mark on 1 object (project.lab/environment.draft/database.db)');
    const marked = await run(['apply', file, '--auto-approve', '--poll-interval', '40'], emu.env(), tmp.dir);
    expect(marked.code, marked.stderr).toBe(0);
    expect(marked.stdout).toContain('Apply complete! Resources: 0 added, 0 changed, 0 destroyed; 0 deployed.');

    const plan = await run(['plan', file, '--detailed-exitcode'], emu.env(), tmp.dir);
    expect(plan.stderr.match(/error/i), plan.stderr).toBeNull();
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
    // Drift agrees: in sync, nothing reported as not deployed.
    const drift = await run(['drift', file, '--format', 'json'], emu.env(), tmp.dir);
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
    expect(JSON.parse(drift.stdout)).toMatchObject({ in_sync: true, items: [] });

    // The user takes deploy: false out: the three services are planned for deploy, for that reason only.
    const deploying = path.join(tmp.dir, 'deploying.yaml');
    writeFileSync(deploying, text.replace(/^\s*deploy: false\n/gm, ''));
    const planned = await run(['plan', deploying, '--json'], emu.env(), tmp.dir);
    expect(planned.code, planned.stderr).toBe(0);
    const doc = JSON.parse(planned.stdout);
    expect(doc.summary).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 3 });
    const drifting = await run(['drift', deploying, '--format', 'json'], emu.env(), tmp.dir);
    expect(drifting.code).toBe(2);
    expect(JSON.parse(drifting.stdout).items.map((i: { drift: string; summary: string }) => `${i.drift} ${i.summary}`)).toEqual([
      'not_deployed not running what Git says: never deployed',
      'not_deployed not running what Git says: never deployed',
      'not_deployed not running what Git says: never deployed',
    ]);
  }, 60_000);
});
