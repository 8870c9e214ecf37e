/**
 * Acceptance: values the API accepts from the console export to a manifest that validates and
 * plans with no changes: cron jobs scheduled with a macro (@daily, @hourly, ...), as Kubernetes
 * takes them, and a container scaled to zero (max_running_instances 0).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectValidAndInSync, run, startEmu, tempDir, waitForDeployments, type Emu } from '../export/helpers.js';

let emu: Emu;
const tmp = tempDir('driftless-acceptance-');

beforeAll(async () => {
  emu = await startEmu();
  const { api } = emu;
  const org = emu.em.organizationId;
  const clusters = (await api('GET', `/organization/${org}/cluster`)).results as any[];
  const registry = ((await api('GET', `/organization/${org}/containerRegistry`)).results as any[])[0].id as string;
  const project = await api('POST', `/organization/${org}/project`, { name: 'Cron' });
  const env = await api('POST', `/project/${project.id}/environment`, { name: 'prod', mode: 'PRODUCTION', cluster_id: clusters[0].id });
  for (const [name, at] of [['daily', '@daily'], ['hourly', '@hourly'], ['weekly', '@weekly']]) {
    await api('POST', `/environment/${env.id}/job`, { name, source: { image: { registry_id: registry, image_name: 'acme/job', tag: '1' } }, schedule: { cronjob: { scheduled_at: at } } });
  }
  await api('POST', `/environment/${env.id}/container`, { name: 'paused', registry_id: registry, image_name: 'acme/web', tag: '1', min_running_instances: 0, max_running_instances: 0 });
  await api('POST', `/environment/${env.id}/deploy`);
  await waitForDeployments(emu, [env.id]);
}, 30_000);

afterAll(async () => {
  await emu.close();
  tmp.cleanup();
});

describe('export of cron macros and of a container scaled to zero', () => {
  it('validates and plans with no changes', async () => {
    const file = path.join(tmp.dir, 'org.yaml');
    expect((await run(['export', '--out', file], emu.env())).code).toBe(0);
    await expectValidAndInSync(file, emu.env());
  });
});
