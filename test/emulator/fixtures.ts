/** Request bodies and set-up steps shared by the emulator tests. */
import type { Client } from './helpers.js';

export async function clusters(c: Client): Promise<{ production: any; staging: any }> {
  const r = await c.get(`/organization/${c.em.organizationId}/cluster`);
  const byName = (n: string) => r.body.results.find((x: any) => x.name === n);
  return { production: byName('production-cluster'), staging: byName('staging-cluster') };
}

export async function registryId(c: Client): Promise<string> {
  const r = await c.get(`/organization/${c.em.organizationId}/containerRegistry`);
  return r.body.results.find((x: any) => x.name === 'docker-hub').id;
}

/** The id of a helm repository of the default organization (`bitnami` or `prometheus-community`). */
export async function helmRepositoryId(c: Client, name = 'bitnami'): Promise<string> {
  const r = await c.get(`/organization/${c.em.organizationId}/helmRepository`);
  return r.body.results.find((x: any) => x.name === name).id;
}

/** A project with one environment on the production cluster. */
export async function projectAndEnv(c: Client, name = 'shop'): Promise<{ project: any; env: any }> {
  const project = (await c.post(`/organization/${c.em.organizationId}/project`, { name, description: 'd' })).body;
  const env = (await c.post(`/project/${project.id}/environment`, { name: 'production', mode: 'PRODUCTION' })).body;
  return { project, env };
}

export const appBody = (name = 'api') => ({
  name,
  git_repository: { url: 'https://github.com/acme/api.git', branch: 'main' },
  cpu: 500,
  memory: 512,
  ports: [{ internal_port: 8080, publicly_accessible: true, protocol: 'HTTP' }],
});

export const containerBody = (registry_id: string, name = 'web') => ({ name, registry_id, image_name: 'nginx', tag: '1.27' });

export const databaseBody = (name = 'db') => ({ name, type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', cpu: 250, memory: 256, storage: 10 });

export const jobBody = (registry_id: string, name = 'migrate') => ({
  name,
  source: { image: { image_name: 'acme/migrate', tag: 'v1', registry_id } },
  schedule: { on_start: { arguments: ['migrate'] } },
});

export const cronBody = (registry_id: string, name = 'nightly') => ({
  name,
  source: { image: { image_name: 'acme/cron', tag: 'v1', registry_id } },
  schedule: { cronjob: { scheduled_at: '0 3 * * *' } },
});

export const helmBody = (repository: string, name = 'redis-chart') => ({
  name,
  source: { helm_repository: { repository, chart_name: 'redis', chart_version: '19.0.0' } },
  values_override: { set: [['replica.count', '2']] },
});

export const terraformBody = (name = 'infra') => ({
  name,
  description: 'network',
  terraform_files_source: { git_repository: { url: 'https://github.com/acme/infra.git', branch: 'main' } },
  terraform_variables_source: { tf_var_file_paths: [], tf_vars: [{ key: 'region', value: 'eu-west-3', secret: false }, { key: 'token', value: 's3cr3t-tf', secret: true }] },
});
