/**
 * Changes "made in the console": what a person does by hand on the platform, sent straight to the
 * API (not through driftless), so that `drift` has something real to find. The demo gives these
 * functions a port authenticated as the console user (demo/emulator.ts: the emulator's CONSOLE
 * token), so the audit log shows each edit as made in the console by that person.
 */
import type { ApiPort } from '../live/api-port.js';
import { routes } from '../api/routes.js';
import { serviceKindOfApiType } from '../model/kinds/index.js';
import { listResults, type ApiRecord } from '../live/read.js';

export interface ConsoleChange {
  /** What was changed, for the narration. */
  description: string;
}

async function findProject(api: ApiPort, orgId: string, name: string): Promise<ApiRecord> {
  const p = listResults(await api.get(routes.orgList(orgId, 'projects'))).find((x) => x.name === name);
  if (!p) throw new Error(`project ${name} not found`);
  return p;
}

/** Sets a project variable's value, as a person editing it in the console would. */
export async function editProjectVariable(api: ApiPort, orgId: string, project: string, key: string, value: string): Promise<ConsoleChange> {
  const p = await findProject(api, orgId, project);
  const v = listResults(await api.get(routes.variables(), { parent_id: p.id, scope: 'PROJECT' })).find((x) => x.key === key && x.scope === 'PROJECT');
  if (!v) throw new Error(`variable ${key} not found in project ${project}`);
  await api.put(routes.variableItem(v.id), { key, value, description: v.description ?? null });
  return { description: `project ${project}: variable ${key} set to "${value}"` };
}

/** Changes an application's CPU, keeping every other setting (the edit replaces the whole record). */
export async function editApplicationCpu(api: ApiPort, orgId: string, project: string, environment: string, name: string, cpu: number): Promise<ConsoleChange> {
  const p = await findProject(api, orgId, project);
  const env = listResults(await api.get(routes.environments(p.id))).find((e) => e.name === environment);
  if (!env) throw new Error(`environment ${environment} not found`);
  const app = listResults(await api.get(routes.environmentList(env.id, 'services'))).find((s) => s.name === name && s.service_type === 'APPLICATION');
  if (!app) throw new Error(`application ${name} not found`);
  const git = (app.git_repository ?? {}) as ApiRecord;
  const body: Record<string, unknown> = {
    name: app.name,
    description: app.description ?? undefined,
    git_repository: { url: git.url, branch: git.branch ?? undefined, root_path: git.root_path ?? undefined, provider: git.provider ?? undefined },
    build_mode: app.build_mode ?? undefined,
    dockerfile_path: app.dockerfile_path ?? undefined,
    cpu,
    memory: app.memory,
    min_running_instances: app.min_running_instances,
    max_running_instances: app.max_running_instances,
    healthchecks: app.healthchecks ?? {},
    auto_deploy: app.auto_deploy ?? undefined,
    arguments: app.arguments ?? undefined,
    entrypoint: app.entrypoint ?? undefined,
    ports: ((app.ports ?? []) as ApiRecord[]).map((port) => ({
      id: port.id,
      name: port.name,
      internal_port: port.internal_port,
      external_port: port.external_port ?? undefined,
      protocol: port.protocol,
      publicly_accessible: port.publicly_accessible,
    })),
    annotations_groups: ((app.annotations_groups ?? []) as ApiRecord[]).map((g) => ({ id: g.id })),
    labels_groups: ((app.labels_groups ?? []) as ApiRecord[]).map((g) => ({ id: g.id })),
  };
  // Undefined fields are left out by the client's JSON serialisation.
  await api.put(routes.serviceItem(serviceKindOfApiType().get(String(app.service_type))!, app.id), body);
  return { description: `${project}/${environment}: application ${name} cpu ${String(app.cpu)} -> ${cpu} millicores` };
}
