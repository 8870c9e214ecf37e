/**
 * Counts what exists, through the API (the list endpoints the export reads), and names every
 * duplicate: two projects, environments, services, variables, deployment stages, alert rules,
 * alert receivers, groups or webhooks with the same identity under the same parent.
 */
import { createApiClient } from '../../src/api/index.js';
import { portFromClient } from '../../src/live/api-port.js';
import { readOrganization } from '../../src/export/read.js';

export interface Census {
  counts: Record<string, number>;
  /** "service production/api x2", ... (empty when there is none). */
  duplicates: string[];
}

export async function census(url: string, token: string): Promise<Census> {
  const client = createApiClient({ baseUrl: url, token, parallelism: 4 });
  try {
    const r = await readOrganization(portFromClient(client));
    const seen = new Map<string, number>();
    const counts: Record<string, number> = {};
    const add = (kind: string, identity: string) => {
      counts[kind] = (counts[kind] ?? 0) + 1;
      const k = `${kind} ${identity}`;
      seen.set(k, (seen.get(k) ?? 0) + 1);
    };
    const nameOf = new Map<string, string>();
    for (const p of r.lists.projects ?? []) {
      add('project', String(p.name));
      nameOf.set(p.id, String(p.name));
    }
    for (const [pid, envs] of r.environments) {
      for (const e of envs) {
        add('environment', `${nameOf.get(pid)}/${e.name}`);
        nameOf.set(e.id, `${nameOf.get(pid)}/${e.name}`);
      }
    }
    for (const [eid, services] of r.services) {
      for (const s of services) {
        add('service', `${nameOf.get(eid)}/${s.name}`);
        nameOf.set(s.id, `${nameOf.get(eid)}/${s.name}`);
      }
    }
    for (const [eid, stages] of r.stages) for (const s of stages) add('stage', `${nameOf.get(eid)}/${s.name}`);
    for (const [parent, vars] of r.variables) {
      for (const v of vars) if (v.variable_type !== 'BUILT_IN') add('variable', `${nameOf.get(parent) ?? parent}:${v.key}`);
    }
    for (const x of r.lists.alertRules ?? []) add('alert rule', String(x.name));
    for (const x of r.lists.alertReceivers ?? []) add('alert receiver', String(x.name));
    for (const x of r.lists.annotationsGroups ?? []) add('annotations group', String(x.name));
    for (const x of r.lists.labelsGroups ?? []) add('labels group', String(x.name));
    for (const x of r.lists.webhooks ?? []) add('webhook', String(x.target_url));
    const duplicates = [...seen].filter(([, c]) => c > 1).map(([k, c]) => `${k} x${c}`);
    return { counts, duplicates };
  } finally {
    await client.close();
  }
}
