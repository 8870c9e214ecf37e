/**
 * Faster set-up of large organizations: the first project is created through the emulator's API
 * (populate.mjs) and deployed; every further project of the same shape is a copy of its records
 * with fresh UUIDs and its own name, merged into the state the emulator then restarts from.
 *
 * The copies are exactly the records the API returned for the first project (same shapes, same
 * defaults, deployed statuses, histories, fingerprint markers), with every UUID of the project's
 * subtree replaced consistently; references outside the subtree (organization, clusters, container
 * registries) are kept. BUILT_IN variables embed the service id in their keys
 * (`QOVERY_APPLICATION_Z<id>_...`): the emulator re-syncs them itself the first time an
 * environment's variables are listed.
 */
import { randomUUID } from 'node:crypto';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Collections whose keys or records belong to a project's subtree. */
function subtreeOf(state, projectId) {
  const envIds = new Set(Object.values(state.environments).filter((e) => (e.project?.id ?? e.project_id) === projectId).map((e) => e.id));
  const serviceIds = new Set(Object.values(state.services).filter((s) => envIds.has(s.environment?.id ?? s.environment_id)).map((s) => s.id));
  const parents = new Set([projectId, ...envIds, ...serviceIds]);
  const pick = (coll, keep) => Object.fromEntries(Object.entries(coll ?? {}).filter(([k, v]) => keep(k, v)));
  const variables = pick(state.variables, (_, v) => parents.has(v.parent_id));
  return {
    projects: pick(state.projects, (k) => k === projectId),
    environments: pick(state.environments, (k) => envIds.has(k)),
    services: pick(state.services, (k) => serviceIds.has(k)),
    serviceStatuses: pick(state.serviceStatuses, (k) => serviceIds.has(k)),
    advancedSettings: pick(state.advancedSettings, (k) => serviceIds.has(k)),
    deploymentStages: pick(state.deploymentStages, (_, v) => envIds.has(v.environment?.id)),
    variables,
    secretValues: pick(state.secretValues, (k) => Object.hasOwn(variables, k)),
    environmentHistory: pick(state.environmentHistory, (k) => envIds.has(k)),
    serviceHistory: pick(state.serviceHistory, (k) => serviceIds.has(k)),
    logs: pick(state.logs, (k) => serviceIds.has(k)),
  };
}

/**
 * Adds to `state` (a plain JSON copy of an emulator state) one copy of project `templateName`
 * per entry of `projects` (spec projects, see spec.mjs), named after it. Returns `state`.
 */
export function cloneProjects(state, templateName, projects) {
  const template = Object.values(state.projects).find((p) => p.name === templateName);
  if (!template) throw new Error(`clone: no project named ${templateName}`);
  const keep = new Set([
    state.organization.id,
    state.organization.owner,
    ...Object.keys(state.clusters),
    ...Object.keys(state.containerRegistries),
  ]);
  const text = JSON.stringify(subtreeOf(state, template.id));
  for (const p of projects) {
    const ids = new Map();
    const copy = JSON.parse(
      text.replace(UUID, (u) => {
        const k = u.toLowerCase();
        if (keep.has(k)) return u;
        let v = ids.get(k);
        if (!v) ids.set(k, (v = randomUUID()));
        return v;
      }),
    );
    const project = Object.values(copy.projects)[0];
    project.name = p.name;
    project.description = p.description;
    // Project-level variables whose values differ between projects (spec.mjs: TEAM).
    for (const v of Object.values(copy.variables)) {
      if (v.parent_id !== project.id || v.is_secret) continue;
      const want = p.variables.find((x) => x.key === v.key);
      if (want && !want.secretEnv) v.value = want.value;
    }
    for (const [coll, recs] of Object.entries(copy)) Object.assign(state[coll], recs);
  }
  return state;
}
