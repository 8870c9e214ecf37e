/**
 * Which declared-but-missing services existed before: their names appear in their environment's
 * deployment history. One request per environment that has a missing service (usually none).
 * `datedByLog`: a missing service whose deletion the audit log already holds (the events the
 * refresh read): the log says who deleted it and when, so its history is not read.
 */
import { isRateLimitWaitRefusal, type ApiPort } from '../live/api-port.js';
import { routes } from '../api/routes.js';
import type { Address, LiveState } from '../model/resource.js';
import { isServiceKind } from '../model/resource.js';
import type { Plan } from '../plan/types.js';

type PlannedChange = Plan['changes'][number];

export async function servicesDeployedBefore(api: ApiPort, plan: Plan, live: LiveState, datedByLog: (c: PlannedChange) => boolean = () => false): Promise<Set<Address>> {
  const missing = plan.changes.filter((c) => isServiceKind(c.kind) && c.actions[0] === 'create' && c.actions.length === 1 && c.parent !== undefined && !datedByLog(c));
  const byEnv = new Map<Address, typeof missing>();
  for (const c of missing) byEnv.set(c.parent!, [...(byEnv.get(c.parent!) ?? []), c]);
  const out = new Set<Address>();
  for (const [env, changes] of byEnv) {
    const envId = live.resources.get(env)?.id;
    if (!envId) continue;
    let names: Set<string>;
    try {
      names = historyNames(await api.get(routes.deploymentHistory(envId), { pageSize: 20 }));
    } catch (e) {
      // A wait beyond --max-wait stops the run (exit 1) as anywhere else.
      if (isRateLimitWaitRefusal(e)) throw e;
      // Attribution only: without the history the item stays of unknown origin.
      continue;
    }
    for (const c of changes) if (names.has(c.name.toLowerCase())) out.add(c.address);
  }
  return out;
}

function historyNames(resp: unknown): Set<string> {
  const names = new Set<string>();
  const results = (resp as { results?: unknown[] } | null)?.results ?? [];
  for (const entry of results as Array<Record<string, any>>) {
    for (const stage of entry?.stages ?? []) for (const s of stage?.services ?? []) if (typeof s?.identifier?.name === 'string') names.add(s.identifier.name.toLowerCase());
  }
  return names;
}
