/**
 * Healthchecks (readiness/liveness probes) and persistent storage of applications and containers,
 * end to end against the emulator over real HTTP: apply, plan, a probe changed in the manifest, a
 * console edit (drift), a manifest without the keys (the live ones are kept), and export.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { expectValidAndInSync, run, startEmu, tempDir, waitForDeployments, type Emu } from '../export/helpers.js';

const tmp = tempDir('driftless-probes-');
const emus: Emu[] = [];
afterAll(async () => {
  for (const e of emus) await e.close();
  tmp.cleanup();
});

function manifest(o: { period?: number; apiProbes?: boolean; cpu?: number } = {}): string {
  const lines = [
    'version: 1',
    'projects:',
    '  - name: probes',
    '    environments:',
    '      - name: dev',
    '        cluster: staging-cluster',
    '        services:',
    '          - type: application',
    '            name: api',
    '            git_repository:',
    '              url: https://github.com/driftless-examples/api.git',
    '            dockerfile_path: Dockerfile',
    `            cpu: ${o.cpu ?? 250}`,
    '            ports:',
    '              - internal_port: 8080',
  ];
  if (o.apiProbes !== false) {
    lines.push(
      '            healthchecks:',
      '              readiness_probe:',
      '                type:',
      '                  http: { port: 8080, path: /ready }',
      ...(o.period !== undefined ? [`                period_seconds: ${o.period}`] : []),
      '              liveness_probe:',
      '                type: { tcp: { port: 8080 } }',
      '                failure_threshold: 3',
      '            storage:',
      '              - mount_point: /data',
      '                size: 10',
    );
  }
  lines.push(
    '          - type: container',
    '            name: web',
    '            registry: docker-hub',
    '            image_name: library/nginx',
    '            tag: "1.27"',
    '            healthchecks:',
    '              readiness_probe:',
    '                type: { exec: { command: [sh, -c, test -f /tmp/ready] } }',
    '                initial_delay_seconds: 5',
    '            storage:',
    '              - mount_point: /var/cache',
    '                size: 4',
    '              - mount_point: /assets',
    '                size: 8',
    '                type: FAST_SSD',
  );
  return lines.join('\n') + '\n';
}

const byName = (emu: Emu, name: string) => Object.values(emu.em.state.services).find((s) => s.name === name) as Record<string, any>;
const API = 'project.probes/environment.dev/application.api';

describe('healthchecks and storage, end to end', () => {
  it('apply creates them; plan is clean; a period change is exactly that field; a console edit is drift; a manifest without the keys keeps them', async () => {
    const emu = await startEmu();
    emus.push(emu);
    const env = emu.env();
    const file = path.join(tmp.dir, 'probes.yaml');
    const envIds = () => Object.values(emu.em.state.environments).map((e) => String(e.id));
    const apply = async () => {
      const r = await run(['apply', file, '--auto-approve'], env);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      await waitForDeployments(emu, envIds());
      return r;
    };

    writeFileSync(file, manifest());
    await apply();
    const api = byName(emu, 'api');
    expect(api.healthchecks).toEqual({
      readiness_probe: { type: { http: { path: '/ready', scheme: 'HTTP', port: 8080 } }, initial_delay_seconds: 30, period_seconds: 10, timeout_seconds: 5, success_threshold: 1, failure_threshold: 9 },
      liveness_probe: { type: { tcp: { port: 8080, host: null } }, initial_delay_seconds: 30, period_seconds: 10, timeout_seconds: 5, success_threshold: 1, failure_threshold: 3 },
    });
    expect(api.storage).toHaveLength(1);
    expect(api.storage[0]).toMatchObject({ type: 'FAST_SSD', size: 10, mount_point: '/data' });
    const storageId = api.storage[0].id;
    expect(typeof storageId).toBe('string');
    const web = byName(emu, 'web');
    expect(web.healthchecks.readiness_probe).toMatchObject({ type: { exec: { command: ['sh', '-c', 'test -f /tmp/ready'] } }, initial_delay_seconds: 5 });
    expect(web.healthchecks.liveness_probe).toBeNull();
    expect(web.storage.map((s: any) => `${s.mount_point}:${s.size}:${s.type}`).sort()).toEqual(['/assets:8:FAST_SSD', '/var/cache:4:FAST_SSD']);
    await expectValidAndInSync(file, env);

    // The readiness period changes in the manifest: the plan shows exactly that.
    writeFileSync(file, manifest({ period: 20 }));
    const planned = await run(['plan', file, '--json'], env);
    expect(planned.code, planned.stderr).toBe(0);
    const changes = (JSON.parse(planned.stdout).resource_changes as any[]).filter((c) => c.change.actions[0] !== 'no-op');
    expect(changes.map((c) => c.address)).toEqual([API]);
    expect(changes[0].change.changed_fields).toEqual(['healthchecks']);
    const before = changes[0].change.before.healthchecks;
    const after = changes[0].change.after.healthchecks;
    expect(before.readiness_probe.period_seconds).toBe(10);
    expect(after.readiness_probe.period_seconds).toBe(20);
    expect({ ...after.readiness_probe, period_seconds: 10 }).toEqual(before.readiness_probe);
    expect(after.liveness_probe).toEqual(before.liveness_probe);
    await apply();
    expect(byName(emu, 'api').healthchecks.readiness_probe.period_seconds).toBe(20);
    // The PUT kept the volume (same id), it did not delete and recreate it.
    expect(byName(emu, 'api').storage.map((s: any) => s.id)).toEqual([storageId]);
    await expectValidAndInSync(file, env);

    // A console user changes the liveness probe's timeout: drift names it.
    const live = await emu.api('GET', `/application/${api.id}`);
    const edited = structuredClone(live.healthchecks);
    edited.liveness_probe.timeout_seconds = 12;
    await emu.api('PUT', `/application/${api.id}`, {
      name: live.name, git_repository: live.git_repository, build_mode: live.build_mode, dockerfile_path: live.dockerfile_path, cpu: live.cpu, memory: live.memory,
      ports: live.ports, storage: live.storage, healthchecks: edited,
    });
    const drift = await run(['drift', file, '--format', 'json'], env);
    expect(drift.code, drift.stdout + drift.stderr).toBe(2);
    const report = JSON.parse(drift.stdout);
    expect(report.items.map((i: any) => i.address)).toEqual([API]);
    expect(JSON.stringify(report.items[0])).toContain('healthchecks');
    expect(JSON.stringify(report.items[0])).toContain('timeout_seconds');

    // A manifest without healthchecks nor storage for the api: an update (cpu) keeps the live ones,
    // the console's edit included, and the plan after it is clean.
    writeFileSync(file, manifest({ apiProbes: false, cpu: 300 }));
    await apply();
    const kept = byName(emu, 'api');
    expect(kept.cpu).toBe(300);
    expect(kept.healthchecks.liveness_probe.timeout_seconds).toBe(12);
    expect(kept.healthchecks.readiness_probe.period_seconds).toBe(20);
    expect(kept.storage.map((s: any) => [s.id, s.mount_point, s.size])).toEqual([[storageId, '/data', 10]]);
    await expectValidAndInSync(file, env);
  });

  it('exports a hand-built service with probes and storage, and the export round-trips', async () => {
    const emu = await startEmu();
    emus.push(emu);
    const org = emu.em.organizationId;
    const clusters = (await emu.api('GET', `/organization/${org}/cluster`)).results as any[];
    const registries = (await emu.api('GET', `/organization/${org}/containerRegistry`)).results as any[];
    const project = await emu.api('POST', `/organization/${org}/project`, { name: 'console' });
    const envr = await emu.api('POST', `/project/${project.id}/environment`, { name: 'prod', mode: 'PRODUCTION', cluster_id: clusters[0].id });
    const probe = (type: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      type: { tcp: null, http: null, exec: null, grpc: null, ...type },
      initial_delay_seconds: 30, period_seconds: 10, timeout_seconds: 5, success_threshold: 1, failure_threshold: 9, ...extra,
    });
    await emu.api('POST', `/environment/${envr.id}/container`, {
      name: 'queue', registry_id: registries.find((r) => r.name === 'docker-hub').id, image_name: 'library/rabbitmq', tag: '3.13',
      ports: [{ internal_port: 5672, protocol: 'TCP', publicly_accessible: false }],
      healthchecks: { readiness_probe: probe({ grpc: { port: 5672, service: 'amqp' } }, { period_seconds: 15 }), liveness_probe: probe({ http: { path: '/health', scheme: 'HTTPS', port: 15672 } }) },
      storage: [{ type: 'FAST_SSD', size: 50, mount_point: '/var/lib/rabbitmq' }, { type: 'FAST_SSD', size: 5, mount_point: '/etc/rabbitmq' }],
    });

    const file = path.join(tmp.dir, 'exported.yaml');
    const exp = await run(['export', '--out', file], emu.env());
    expect(exp.code, exp.stderr).toBe(0);
    expect(exp.stderr).not.toMatch(/container\.queue: .*(healthchecks|storage)/);
    const doc = YAML.parse(readFileSync(file, 'utf8'));
    const queue = (doc.projects[0].environments[0].services as any[]).find((s) => s.name === 'queue');
    expect(queue.healthchecks).toEqual({
      readiness_probe: { type: { grpc: { port: 5672, service: 'amqp' } }, period_seconds: 15 },
      liveness_probe: { type: { http: { path: '/health', scheme: 'HTTPS', port: 15672 } } },
    });
    expect(queue.storage).toEqual([
      { size: 5, mount_point: '/etc/rabbitmq' },
      { size: 50, mount_point: '/var/lib/rabbitmq' },
    ]);
    await expectValidAndInSync(file, emu.env());
  });
});
