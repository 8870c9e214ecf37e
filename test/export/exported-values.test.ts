/**
 * The export writes the values the organization holds, field by field. The round-trip tests only
 * check that a plan of the export is clean, and a plan is blind to a field the export left out (a
 * manifest owns only what it declares): an exported scaled-to-zero container that lost its
 * `max_running_instances` still plans clean. Here the exported YAML is parsed back and compared with
 * the values this test sent to the API when it built the organization by hand.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { run, startEmu, tempDir, waitForDeployments, type Emu } from './helpers.js';

let emu: Emu;
const tmp = tempDir('driftless-export-values-');

/** What this test sends to the API, kept to compare with the export. */
const SENT = {
  api: { cpu: 1000, memory: 1024, min_running_instances: 2, max_running_instances: 4 },
  idle: { cpu: 250, memory: 128, min_running_instances: 0, max_running_instances: 3 },
  sleeper: { cpu: 750, memory: 768, min_running_instances: 0, max_running_instances: 2 },
  plain: { cpu: 500, memory: 512, min_running_instances: 1, max_running_instances: 1 },
};

beforeAll(async () => {
  emu = await startEmu();
  const { api } = emu;
  const org = emu.em.organizationId;
  const clusters = (await api('GET', `/organization/${org}/cluster`)).results as any[];
  const registry = ((await api('GET', `/organization/${org}/containerRegistry`)).results as any[]).find((r) => r.name === 'docker-hub').id;
  const project = await api('POST', `/organization/${org}/project`, { name: 'fleet' });
  const env = await api('POST', `/project/${project.id}/environment`, { name: 'prod', mode: 'PRODUCTION', cluster_id: clusters.find((c) => c.name === 'production-cluster').id });
  await api('POST', `/environment/${env.id}/application`, { name: 'api', git_repository: { url: 'https://github.com/acme/api.git', branch: 'release', root_path: '/srv' }, build_mode: 'DOCKER', dockerfile_path: 'Dockerfile', ...SENT.api, ports: [{ internal_port: 8080, external_port: 443, protocol: 'HTTP', publicly_accessible: true, name: 'web' }] });
  await api('POST', `/environment/${env.id}/application`, { name: 'sleeper', git_repository: { url: 'https://github.com/acme/sleeper.git', branch: 'main' }, build_mode: 'DOCKER', dockerfile_path: 'Dockerfile', ...SENT.sleeper });
  const idle = await api('POST', `/environment/${env.id}/container`, { name: 'idle', registry_id: registry, image_name: 'acme/idle', tag: '2.0', ...SENT.idle });
  await api('POST', `/environment/${env.id}/container`, { name: 'plain', registry_id: registry, image_name: 'acme/plain', tag: 'latest', ...SENT.plain });
  await api('POST', `/environment/${env.id}/database`, { name: 'orders-db', type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', accessibility: 'PUBLIC', cpu: 500, memory: 512, storage: 20 });
  await api('POST', `/environment/${env.id}/job`, { name: 'nightly', max_nb_restart: 2, max_duration_seconds: 600, cpu: 250, memory: 256, source: { image: { registry_id: registry, image_name: 'acme/report', tag: 'v3' } }, schedule: { cronjob: { scheduled_at: '0 3 * * *', timezone: 'Europe/Paris', arguments: ['--all'] } } });
  await api('POST', '/variable', { key: 'LOG_LEVEL', value: 'debug', is_secret: false, variable_scope: 'CONTAINER', variable_parent_id: idle.id });
  await api('POST', `/environment/${env.id}/deploy`);
  await waitForDeployments(emu, [env.id]);
}, 60_000);

afterAll(async () => {
  await emu.close();
  tmp.cleanup();
});

/** The exported services of fleet/prod, by name, read back from the YAML text. */
function servicesOf(doc: any): Map<string, any> {
  const project = doc.projects.find((p: any) => p.name === 'fleet');
  const env = project.environments.find((e: any) => e.name === 'prod');
  return new Map(env.services.map((s: any) => [s.name, s]));
}

const pick = (o: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));
const COMPUTE = ['cpu', 'memory', 'min_running_instances', 'max_running_instances'];

describe('export, read back', () => {
  it('writes every compute setting of applications and containers as sent, scaled-to-zero ones and ones at the defaults included', async () => {
    const file = path.join(tmp.dir, 'org.yaml');
    const exp = await run(['export', '--out', file], emu.env());
    expect(exp.code, exp.stderr).toBe(0);
    const services = servicesOf(parse(readFileSync(file, 'utf8')));
    expect([...services.keys()].sort()).toEqual(['api', 'idle', 'nightly', 'orders-db', 'plain', 'sleeper']);

    // Scaled to zero: min 0 written, and max kept (a zero min must not swallow the max).
    expect(pick(services.get('idle'), COMPUTE)).toEqual(SENT.idle);
    expect(pick(services.get('sleeper'), COMPUTE)).toEqual(SENT.sleeper);
    expect(pick(services.get('api'), COMPUTE)).toEqual(SENT.api);
    // At the manifest's defaults the settings are still written: the manifest owns them.
    expect(pick(services.get('plain'), COMPUTE)).toEqual(SENT.plain);

    expect(services.get('idle')).toMatchObject({ type: 'container', registry: 'docker-hub', image_name: 'acme/idle', tag: '2.0', variables: [{ key: 'LOG_LEVEL', value: 'debug' }] });
    expect(services.get('plain')).toMatchObject({ type: 'container', registry: 'docker-hub', image_name: 'acme/plain', tag: 'latest' });
    expect(services.get('api')).toMatchObject({
      type: 'application',
      git_repository: { url: 'https://github.com/acme/api.git', branch: 'release', root_path: '/srv' },
      build_mode: 'DOCKER',
      dockerfile_path: 'Dockerfile',
      ports: [{ internal_port: 8080, external_port: 443, publicly_accessible: true, name: 'web' }],
    });
    expect(services.get('orders-db')).toMatchObject({ type: 'database', database_type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', accessibility: 'PUBLIC', cpu: 500, memory: 512, storage: 20 });
    expect(services.get('nightly')).toMatchObject({
      type: 'job',
      cpu: 250,
      memory: 256,
      max_nb_restart: 2,
      max_duration_seconds: 600,
      source: { image: { registry: 'docker-hub', image_name: 'acme/report', tag: 'v3' } },
      schedule: { cron: { scheduled_at: '0 3 * * *', timezone: 'Europe/Paris', arguments: ['--all'] } },
    });
  });

  it('the directory layout holds the same values, in the file of the environment', async () => {
    const dir = path.join(tmp.dir, 'tree');
    const exp = await run(['export', '--out', dir, '--layout', 'directory'], emu.env());
    expect(exp.code, exp.stderr).toBe(0);
    const project = parse(readFileSync(path.join(dir, 'project-fleet.prod.yaml'), 'utf8'));
    const services = servicesOf(project);
    for (const name of ['api', 'idle', 'sleeper', 'plain'] as const) expect(pick(services.get(name), COMPUTE), name).toEqual(SENT[name]);
  });
});
