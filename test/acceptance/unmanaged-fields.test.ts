/**
 * Acceptance: fields a manifest cannot declare survive an apply that updates the service. A
 * console user sets them (a lifecycle job's lifecycle_type, a job built from an inline Dockerfile,
 * a helm port's service name and namespace, helm set_json and values files from git); the team adopts the organization with `export` and
 * later changes something the manifest owns; the full-replacement PUT must not wipe what it does
 * not own.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startEmu, tempDir, type Emu } from '../export/helpers.js';

let emu: Emu;
const tmp = tempDir('driftless-acceptance-');
const ids: Record<string, string> = {};

beforeAll(async () => {
  emu = await startEmu();
  const { api } = emu;
  const org = emu.em.organizationId;
  const clusters = (await api('GET', `/organization/${org}/cluster`)).results as any[];
  const registry = ((await api('GET', `/organization/${org}/containerRegistry`)).results as any[])[0].id as string;
  const bitnami = ((await api('GET', `/organization/${org}/helmRepository`)).results as any[]).find((r) => r.name === 'bitnami').id as string;
  const project = await api('POST', `/organization/${org}/project`, { name: 'ops' });
  const env = await api('POST', `/project/${project.id}/environment`, { name: 'prod', mode: 'PRODUCTION', cluster_id: clusters[0].id });
  ids.lifecycle = (await api('POST', `/environment/${env.id}/job`, {
    name: 'provision', cpu: 200, source: { image: { registry_id: registry, image_name: 'acme/lc', tag: '1' } },
    schedule: { on_start: { arguments: ['apply'] }, lifecycle_type: 'TERRAFORM' },
  })).id;
  ids.cron = (await api('POST', `/environment/${env.id}/job`, {
    name: 'cleanup', cpu: 200, source: { docker: { git_repository: { url: 'https://github.com/acme/jobs.git', branch: 'main' }, dockerfile_raw: 'FROM alpine\n', docker_target_build_stage: 'final' } },
    schedule: { cronjob: { scheduled_at: '0 * * * *' } },
  })).id;
  ids.helm = (await api('POST', `/environment/${env.id}/helm`, {
    name: 'grafana', source: { helm_repository: { repository: bitnami, chart_name: 'grafana', chart_version: '1.0.0' } },
    values_override: { set: [], set_string: [] }, arguments: [], timeout_sec: 600,
    ports: [{ name: 'web', internal_port: 3000, external_port: 443, service_name: 'grafana-svc', namespace: 'monitoring', protocol: 'HTTP' }],
  })).id;
  ids.values = (await api('POST', `/environment/${env.id}/helm`, {
    name: 'values', source: { helm_repository: { repository: bitnami, chart_name: 'x', chart_version: '1.0.0' } },
    values_override: { set: [['replicas', '1']], set_string: [], set_json: [['resources', '{"cpu":1}']], file: { git: { git_repository: { url: 'https://github.com/acme/values.git', branch: 'main' }, paths: ['prod.yaml'] } } },
    arguments: [],
  })).id;
  await api('POST', `/environment/${env.id}/deploy`);
}, 30_000);

afterAll(async () => {
  await emu.close();
  tmp.cleanup();
});

describe('an update keeps the fields the manifest does not own', () => {
  it('lifecycle_type, dockerfile_raw, docker_target_build_stage, helm port service_name/namespace, helm set_json and git values files survive an update', async () => {
    const file = path.join(tmp.dir, 'org.yaml');
    expect((await run(['export', '--project', 'ops', '--out', file], emu.env())).code).toBe(0);
    const text = readFileSync(file, 'utf8');
    const edited = text.replaceAll('cpu: 200', 'cpu: 300').replace('type: helm', 'type: helm\n            description: dashboards').replace('replicas: "1"', 'replicas: "2"');
    expect(edited).toContain('replicas: "2"');
    expect(edited).not.toBe(text);
    writeFileSync(file, edited);
    const applied = await run(['apply', file, '--auto-approve'], emu.env());
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);

    const lifecycle = await emu.api('GET', `/job/${ids.lifecycle}`);
    expect(lifecycle.cpu).toBe(300);
    expect(lifecycle.schedule.lifecycle_type).toBe('TERRAFORM');
    const cron = await emu.api('GET', `/job/${ids.cron}`);
    expect(cron.cpu).toBe(300);
    expect(cron.source.docker.dockerfile_raw).toBe('FROM alpine\n');
    expect(cron.source.docker.docker_target_build_stage).toBe('final');
    const helm = await emu.api('GET', `/helm/${ids.helm}`);
    expect(helm.description).toBe('dashboards');
    expect(helm.ports[0]).toMatchObject({ service_name: 'grafana-svc', namespace: 'monitoring', internal_port: 3000 });

    const values = await emu.api('GET', `/helm/${ids.values}`);
    expect(values.values_override.set).toEqual([['replicas', '2']]);
    expect(values.values_override.set_json).toEqual([['resources', '{"cpu":1}']]);
    expect(values.values_override.file.git.paths).toEqual(['prod.yaml']);

    const again = await run(['plan', file, '--detailed-exitcode'], emu.env());
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('No changes.');
  }, 30_000);
});
