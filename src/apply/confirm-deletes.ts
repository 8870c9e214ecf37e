/**
 * A delete is sent only for an id a live read in this run confirmed (DESIGN.md principle 5): when
 * the live state came, even in part, from the refresh cache, the lists holding the plan's delete
 * targets are read again before the first write (one request per list, that is per parent), and
 * each target must be there under its id with the name and kind the plan deletes it as. A cache
 * that is wrong (edited, forged with the key, or stale through a log that missed an event) then
 * stops the apply with an error naming the object, instead of deleting another object by its id.
 *
 * After a full read every record was read in this run, and nothing is asked again.
 */
import { error, type Diagnostic } from '../diag/diagnostic.js';
import { routes } from '../api/routes.js';
import type { LiveResource, LiveState } from '../model/resource.js';
import { isServiceKind } from '../model/resource.js';
import type { ApiPort } from '../live/api-port.js';
import { listResults, type ApiRecord } from '../live/read.js';
import { orgListOf, variableScopeOf } from '../model/kinds/index.js';
import { serviceKindOf } from '../live/normalize.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import { mapWithLimit } from '../live/limit.js';
import { stepActionOf } from './steps.js';

/** The list request that holds a live object, or undefined when driftless cannot tell which. */
export function listRequestOf(l: LiveResource, live: LiveState): { path: string; query?: Record<string, string> } | undefined {
  const org = orgListOf(l.kind);
  if (org) return { path: routes.orgList(live.organizationId, org) };
  const parent = l.parent === undefined ? undefined : live.resources.get(l.parent);
  if (!parent) return undefined;
  if (l.kind === 'environment') return { path: routes.environments(parent.id) };
  if (isServiceKind(l.kind)) return { path: routes.environmentList(parent.id, 'services') };
  if (l.kind === 'deployment_stage') return { path: routes.environmentList(parent.id, 'deploymentStage') };
  const scope = variableScopeOf(parent.kind);
  if (l.kind === 'variable' && scope !== undefined) return { path: routes.variables(), query: { parent_id: parent.id, scope } };
  return undefined;
}

/** What names a record of any list: services, projects... by name; variables by key; webhooks by URL. */
function nameOf(rec: Record<string, unknown>): unknown {
  return rec.name ?? rec.key ?? rec.target_url;
}

/** What a change deletes by id: its own delete, or the delete half of a replacement. */
function deleteTargets(plan: Plan): ResourceChange[] {
  return plan.changes.filter((c) => c.status === 'planned' && c.id !== undefined && (stepActionOf(c) === 'delete' || stepActionOf(c) === 'replace'));
}

/**
 * Errors (none: every target confirmed) for the delete targets a live read of their lists does not
 * show under their id with the name and kind the live state gave them.
 */
export async function unconfirmedDeletes(plan: Plan, live: LiveState, api: ApiPort, parallelism = 8): Promise<Diagnostic[]> {
  const byId = new Map([...live.resources.values()].map((l) => [l.id, l]));
  const problems: Diagnostic[] = [];
  const lists = new Map<string, { path: string; query?: Record<string, string>; targets: Array<{ change: ResourceChange; live: LiveResource }> }>();
  for (const c of deleteTargets(plan)) {
    const l = byId.get(c.id!);
    const req = l && listRequestOf(l, live);
    if (!l || !req) {
      problems.push(unconfirmed(c, 'driftless cannot tell which list holds it'));
      continue;
    }
    const key = `${req.path}?${new URLSearchParams(req.query ?? {}).toString()}`;
    const entry = lists.get(key) ?? { ...req, targets: [] };
    entry.targets.push({ change: c, live: l });
    lists.set(key, entry);
  }
  // What goes with a deleted environment or project is read live too: a service the cache did not
  // know (made while the audit log missed it) would go with its parent unlisted and unguarded, a
  // database without --allow-data-loss. Every service of a deleted environment, every environment
  // of a deleted project, must be one the plan lists.
  const contents = new Map<string, Array<{ change: ResourceChange; what: string }>>();
  const unlisted = new Set<string>();
  const holds = (req: { path: string }, change: ResourceChange, what: string) => {
    const key = `${req.path}?`;
    if (!lists.has(key)) lists.set(key, { path: req.path, targets: [] });
    contents.set(key, [...(contents.get(key) ?? []), { change, what }]);
  };
  for (const c of deleteTargets(plan)) {
    const l = byId.get(c.id!);
    if (!l) continue;
    if (l.kind === 'environment') holds({ path: routes.environmentList(l.id, 'services') }, c, 'service');
    if (l.kind === 'project') {
      holds({ path: routes.environments(l.id) }, c, 'environment');
      for (const env of live.resources.values()) if (env.kind === 'environment' && env.parent === l.address) holds({ path: routes.environmentList(env.id, 'services') }, c, 'service');
    }
  }
  await mapWithLimit([...lists.values()], parallelism, async ({ path, query, targets }) => {
    const records = listResults(await api.get(path, query));
    const found = new Map<string, ApiRecord>(records.map((r) => [r.id, r]));
    for (const { change, what } of contents.get(`${path}?${new URLSearchParams(query ?? {}).toString()}`) ?? []) {
      for (const rec of records) {
        // Once, under the first parent it goes with (an environment of a deleted project is read once).
        if (byId.has(rec.id) || unlisted.has(rec.id)) continue;
        unlisted.add(rec.id);
        const kind = what === 'service' ? (serviceKindOf(rec) ?? 'service') : what;
        problems.push(unconfirmed(change, `a live read finds ${kind} ${JSON.stringify(nameOf(rec))} (id ${rec.id}) in what goes with it, which the plan does not list`));
      }
    }
    for (const { change, live: l } of targets) {
      const rec = found.get(l.id);
      const name = nameOf(l.record);
      if (!rec) problems.push(unconfirmed(change, `a live read of its list has no object with id ${l.id}`));
      else if (nameOf(rec) !== name) problems.push(unconfirmed(change, `the live object with id ${l.id} is named ${JSON.stringify(nameOf(rec))}, not ${JSON.stringify(name)}`));
      else if (isServiceKind(l.kind) && serviceKindOf(rec) !== l.kind) problems.push(unconfirmed(change, `the live object with id ${l.id} is of kind ${serviceKindOf(rec) ?? 'unknown'}, not ${l.kind}`));
    }
  });
  return problems.sort((a, b) => String(a.address).localeCompare(String(b.address)));
}

function unconfirmed(c: ResourceChange, why: string): Diagnostic {
  return error('apply.delete-unconfirmed', `${c.address}: not deleted: ${why}`, {
    address: c.address,
    detail:
      'The live state this plan was made from came in part from the refresh cache (--cache), and a live read just now does not confirm what the plan would delete. Nothing was changed. Run the command again with --refresh full, and check who can write the cache directory.',
  });
}
