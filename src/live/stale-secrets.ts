/**
 * Secret fingerprints that can no longer be trusted.
 *
 * driftless keeps the fingerprint of a secret it wrote in the record's description, and a console
 * edit of the value keeps the description: the fingerprint still matches the manifest although
 * the value changed. The record's `updated_at` does move, though. driftless deploys every service
 * that sees a variable right after writing it, so a secret variable updated after the last
 * deployment of every service that sees it was changed by someone else. Its fingerprint is
 * dropped: the plan then shows the value as unknown and apply writes it again, once; `drift`
 * reports it as replaced outside Git.
 *
 * A scope with no deployed service gives no evidence either way: its fingerprints are kept.
 */
import type { Address, LiveResource } from '../model/resource.js';
import { isServiceKind } from '../model/resource.js';
import { holdsVariables } from '../model/kinds/index.js';

export function distrustStaleSecretFingerprints(resources: Map<Address, LiveResource>): void {
  const latest = new Map<Address, string>();
  for (const r of resources.values()) {
    const date = r.status?.last_deployment_date;
    // Databases see no variables.
    if (!isServiceKind(r.kind) || !holdsVariables(r.kind) || !date) continue;
    for (let a: Address | undefined = r.address; a !== undefined; a = resources.get(a)?.parent) {
      const prev = latest.get(a);
      if (prev === undefined || date > prev) latest.set(a, date);
    }
  }
  for (const r of resources.values()) {
    if (r.kind !== 'variable' || r.attrs.is_secret !== true || r.fingerprints?.value === undefined || r.parent === undefined) continue;
    const updated = r.record.updated_at;
    const deployed = latest.get(r.parent);
    if (typeof updated === 'string' && deployed !== undefined && updated > deployed) {
      const { value: _stale, ...rest } = r.fingerprints;
      if (Object.keys(rest).length > 0) r.fingerprints = rest;
      else delete r.fingerprints;
      // The plan says why the value is unknown: driftless wrote it, someone replaced it since.
      r.distrustedFingerprints = [...new Set([...(r.distrustedFingerprints ?? []), 'value'])];
    }
  }
}
