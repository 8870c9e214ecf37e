/**
 * Fixtures for the variables / operations / webhook tests: a project, an environment on the
 * production cluster and one service of each kind, all created through the real HTTP API.
 */
import { expect } from 'vitest';
import type { Client } from './helpers.js';

export interface World {
  orgId: string;
  clusterId: string;
  projectId: string;
  envId: string;
  app: any;
  container: any;
  db: any;
  job: any;
  helm: any;
  terraform: any;
}

export function clusterIdByName(c: Client, name: string): string {
  const cl = Object.values(c.em.state.clusters).find((x) => x.name === name);
  if (!cl) throw new Error(`no seeded cluster ${name}`);
  return cl.id;
}

export function registryId(c: Client): string {
  return Object.values(c.em.state.containerRegistries)[0].id;
}

export function helmRepositoryId(c: Client, name = 'bitnami'): string {
  return Object.values(c.em.state.helmRepositories).find((r) => r.name === name)!.id;
}

async function created(p: Promise<{ status: number; body: any }>, what: string): Promise<any> {
  const r = await p;
  if (r.status !== 200 && r.status !== 201) throw new Error(`creating ${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export async function createEnvironment(c: Client, projectId: string, name: string, cluster = 'production-cluster'): Promise<any> {
  return created(c.post(`/project/${projectId}/environment`, { name, mode: 'STAGING', cluster_id: clusterIdByName(c, cluster) }), `environment ${name}`);
}

export async function createApp(c: Client, envId: string, name: string): Promise<any> {
  return created(c.post(`/environment/${envId}/application`, { name, git_repository: { url: 'https://github.com/acme/api.git', branch: 'main' } }), `application ${name}`);
}

export async function createContainer(c: Client, envId: string, name: string): Promise<any> {
  return created(c.post(`/environment/${envId}/container`, { name, registry_id: registryId(c), image_name: 'nginx', tag: '1.25' }), `container ${name}`);
}

export async function createDatabase(c: Client, envId: string, name: string): Promise<any> {
  return created(c.post(`/environment/${envId}/database`, { name, type: 'POSTGRESQL', version: '16', mode: 'CONTAINER' }), `database ${name}`);
}

export async function world(c: Client, opts: { cluster?: string } = {}): Promise<World> {
  const orgId = c.em.organizationId;
  const project = await created(c.post(`/organization/${orgId}/project`, { name: 'shop' }), 'project');
  const env = await createEnvironment(c, project.id, 'staging', opts.cluster);
  const app = await createApp(c, env.id, 'api');
  const container = await createContainer(c, env.id, 'web');
  const db = await createDatabase(c, env.id, 'db');
  const job = await created(
    c.post(`/environment/${env.id}/job`, {
      name: 'migrate',
      source: { image: { image_name: 'migrate', tag: '1.0', registry_id: registryId(c) } },
      schedule: { on_start: { arguments: ['up'] } },
    }),
    'job',
  );
  const helm = await created(
    c.post(`/environment/${env.id}/helm`, { name: 'redis-chart', source: { helm_repository: { repository: helmRepositoryId(c), chart_name: 'redis', chart_version: '18.0.0' } } }),
    'helm',
  );
  const terraform = await created(
    c.post(`/environment/${env.id}/terraform`, { name: 'infra', terraform_files_source: { git_repository: { url: 'https://github.com/acme/infra.git', branch: 'main' } } }),
    'terraform',
  );
  return { orgId, clusterId: clusterIdByName(c, opts.cluster ?? 'production-cluster'), projectId: project.id, envId: env.id, app, container, db, job, helm, terraform };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `GET /<kind>/{id}/status` and records every distinct state seen, until `done(state)`.
 * The deadline only guards against a hang; no assertion depends on timing.
 */
export async function watchStates(c: Client, path: string, done: (state: string) => boolean, pollMs = 5, deadlineMs = 10_000): Promise<string[]> {
  const seen: string[] = [];
  const end = Date.now() + deadlineMs;
  for (;;) {
    const r = await c.get(path);
    expect(r.status).toBe(200);
    const state = r.body.state as string;
    if (seen.at(-1) !== state) seen.push(state);
    if (done(state)) return seen;
    if (Date.now() > end) throw new Error(`${path}: still ${state} after ${deadlineMs} ms (seen ${seen.join(' -> ')})`);
    await sleep(pollMs);
  }
}

export const TERMINAL = new Set(['DEPLOYED', 'BUILD_ERROR', 'DEPLOYMENT_ERROR', 'STOPPED', 'RESTARTED', 'CANCELED', 'DELETED']);
export const isTerminal = (s: string) => TERMINAL.has(s);

/** Waits until no operation is in progress in the emulator. */
export async function settle(c: Client, deadlineMs = 10_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (Object.keys(c.em.state.operations).length > 0) {
    if (Date.now() > end) throw new Error('operations still in progress');
    await sleep(5);
  }
}
