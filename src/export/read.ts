/**
 * readOrganization: every live record an export needs, with list endpoints only, in the same
 * `LiveRecords` shape the plan's reader produces, so that the plan's normaliser
 * (`liveStateFromRecords`) turns both into identical attrs. The plan reads what a manifest
 * declares; an export reads everything (or one project / environment).
 *
 * Requests: the organization, 8 organization-level lists, then per project its environment list,
 * per environment its service, stage and status lists, and per scope holding variables one unified
 * `/variable` list (a service's list also covers its environment and project, which are then not
 * read again).
 */
import type { ApiPort } from '../live/api-port.js';
import { routes } from '../api/routes.js';
import { mapWithLimit } from '../live/limit.js';
import { serviceKindOf } from '../live/normalize.js';
import { variableScopeOf } from '../model/kinds/index.js';
import { listResults, readOrganizationLists, readVariableLists, type ApiRecord, type LiveRecords, type OrgListName } from '../live/read.js';

export interface ExportScope {
  /** Only this project (exact name). */
  project?: string;
  /** Only environments of this name (in every project, or in `project`). */
  environment?: string;
}

export class ExportScopeError extends Error {}

const ORG_LISTS: OrgListName[] = ['projects', 'clusters', 'containerRegistries', 'annotationsGroups', 'labelsGroups', 'alertReceivers', 'alertRules', 'webhooks'];

export async function readOrganization(api: ApiPort, scope: ExportScope = {}, opts: { parallelism?: number } = {}): Promise<LiveRecords> {
  const limit = opts.parallelism ?? 8;
  const out = await readOrganizationLists(api, ORG_LISTS, limit);

  let projects = out.lists.projects ?? [];
  if (scope.project !== undefined) {
    projects = projects.filter((p) => p.name === scope.project);
    if (projects.length === 0) {
      const known = (out.lists.projects ?? []).map((p) => String(p.name)).sort();
      throw new ExportScopeError(`project "${scope.project}" does not exist. Projects of the organization: ${known.join(', ') || '(none)'}.`);
    }
    out.lists.projects = projects;
  }

  const envs: Array<{ env: ApiRecord; projectId: string }> = [];
  await mapWithLimit(projects, limit, async (p) => {
    let list = listResults(await api.get(routes.environments(p.id)));
    if (scope.environment !== undefined) list = list.filter((e) => e.name === scope.environment);
    out.environments.set(p.id, list);
    for (const env of list) envs.push({ env, projectId: p.id });
  });
  if (scope.environment !== undefined && envs.length === 0) {
    throw new ExportScopeError(`no environment named "${scope.environment}"${scope.project !== undefined ? ` in project "${scope.project}"` : ''}.`);
  }
  if (scope.environment !== undefined) {
    // A project without the environment is not part of the export.
    out.lists.projects = projects.filter((p) => (out.environments.get(p.id) ?? []).length > 0);
  }

  const variableReads: Array<{ id: string; scope: string; envId?: string; projectId: string }> = [];
  await mapWithLimit(envs, limit, async ({ env, projectId }) => {
    const [services, stages, statuses] = await Promise.all([
      api.get(routes.environmentList(env.id, 'services')).then(listResults),
      api.get(routes.environmentList(env.id, 'deploymentStage')).then(listResults),
      // Which services were never deployed: they are exported with `deploy: false`.
      api.get(routes.environmentList(env.id, 'statuses')) as Promise<Record<string, unknown>>,
    ]);
    out.services.set(env.id, services);
    out.stages.set(env.id, stages);
    out.statuses.set(env.id, statuses);
    for (const s of services) {
      const kind = serviceKindOf(s);
      // Databases hold no variables (api-notes 4).
      const scope = kind && variableScopeOf(kind);
      if (scope) variableReads.push({ id: s.id, scope, envId: env.id, projectId });
    }
  });

  // One list per service; an environment or project no service list covers is read on its own.
  const covered = new Map<string, { listOf: string; scope: string }>();
  for (const v of variableReads) {
    if (v.envId && !covered.has(v.envId)) covered.set(v.envId, { listOf: v.id, scope: 'ENVIRONMENT' });
    if (!covered.has(v.projectId)) covered.set(v.projectId, { listOf: v.id, scope: 'PROJECT' });
  }
  for (const { env, projectId } of envs) {
    if (covered.has(env.id)) continue;
    variableReads.push({ id: env.id, scope: 'ENVIRONMENT', projectId });
    covered.set(env.id, { listOf: env.id, scope: 'ENVIRONMENT' });
    if (!covered.has(projectId)) covered.set(projectId, { listOf: env.id, scope: 'PROJECT' });
  }
  for (const p of out.lists.projects ?? []) {
    if (covered.has(p.id)) continue;
    variableReads.push({ id: p.id, scope: 'PROJECT', projectId: p.id });
    covered.set(p.id, { listOf: p.id, scope: 'PROJECT' });
  }
  await readVariableLists(api, out, variableReads, covered, limit);
  return out;
}
