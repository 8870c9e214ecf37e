/**
 * Whether an edit of a service changes what a deployment would run: a deployed service becomes
 * OUT_OF_DATE only then. An edit of its name, description or icon only (what the console shows;
 * the workloads are named after the service's id), or a PUT that writes the record back as it
 * was, leaves it UP_TO_DATE: OUT_OF_DATE says "deploy to run your configuration", and clients
 * (driftless's plan among them, which also deploys nothing for these fields: NON_DEPLOY_FIELDS)
 * deploy on it. A rename (`moved`) thus leaves a running service up to date.
 */
import type { ApiRecord } from '../state.js';

const METADATA = new Set(['name', 'description', 'icon_uri', 'updated_at']);

/** `secretsBefore`/`secretsAfter`: the service's write-only values (terraform's secret tf_vars), which the record holds as null. */
export function changesDeployment(before: ApiRecord, after: ApiRecord, secretsBefore: Record<string, string>, secretsAfter: Record<string, string>): boolean {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const k of keys) if (!METADATA.has(k) && JSON.stringify(withoutItemIds(before[k])) !== JSON.stringify(withoutItemIds(after[k]))) return true;
  return JSON.stringify(sorted(secretsBefore)) !== JSON.stringify(sorted(secretsAfter));
}

/**
 * The configuration only: a port or a storage volume written again without its id gets a new one,
 * and `deployed_*` (the commit a deployment ran) describes a deployment; neither is a change of
 * what the next deployment runs.
 */
function withoutItemIds(v: unknown, inList = false): unknown {
  if (Array.isArray(v)) return v.map((x) => withoutItemIds(x, true));
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !(inList && k === 'id') && !k.startsWith('deployed_'))
        .map(([k, x]) => [k, withoutItemIds(x)]),
    );
  }
  return v;
}

function sorted(r: Record<string, string>): Array<[string, string]> {
  return Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
