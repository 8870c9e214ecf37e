/**
 * Applying a saved plan exactly: the plan is recomputed from the same manifest and a fresh read of
 * the live state (reads apply needs anyway, for ids and update bodies), and must match the saved
 * one. Any difference refuses the apply before a single write:
 *  - a live object the plan touches or relies on changed, vanished, or appeared (findStaleObjects);
 *  - a change differs: the manifest was edited, or a secret re-resolved from the environment no
 *    longer has the fingerprint the plan recorded (sensitive fields compare by fingerprint).
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { error } from '../diag/diagnostic.js';
import type { LiveState } from '../model/resource.js';
import { isActionable, type Plan, type ResourceChange } from '../plan/types.js';
import { findStaleObjects } from '../plan/planfile.js';
import { plural } from '../render/words.js';
import { shellQuote } from '../render/shell-quote.js';

export interface PlanMismatch {
  address: string;
  /** `live`: the object changed in the organization; `secret`: a secret differs; `manifest`: the rest. */
  cause: 'live' | 'secret' | 'manifest';
  reason: string;
}

/** What of a change apply acts on (display-only reasons left out). */
function essence(c: ResourceChange): string {
  return JSON.stringify({
    actions: c.actions,
    status: c.status,
    previous_address: c.previous_address,
    id: c.id,
    version: c.version,
    fields: c.fields,
    after: c.after,
    deploy: c.deploy ? { git_commit_id: c.deploy.git_commit_id, image_tag: c.deploy.image_tag } : undefined,
    clone_from: c.clone_from,
    via_parent: c.via_parent,
    replaces: c.replaces,
    fingerprints: c.fingerprints,
  });
}

function secretFieldsChanged(saved: ResourceChange, fresh: ResourceChange): boolean {
  const afterSecrets = (c: ResourceChange) => JSON.stringify(c.after ?? {}).match(/"fingerprint":"[^"]*"/g)?.join() ?? '';
  return afterSecrets(saved) !== afterSecrets(fresh) || JSON.stringify(saved.fingerprints ?? {}) !== JSON.stringify(fresh.fingerprints ?? {});
}

function onlySecretsChange(c: ResourceChange): boolean {
  return c.fields.length > 0 && c.fields.every((f) => f.sensitive === true);
}

function liveChanged(saved: ResourceChange | undefined, fresh: ResourceChange | undefined): boolean {
  return saved?.version !== undefined && fresh?.version !== undefined && saved.version !== fresh.version;
}

const LIVE = 'changed in the live organization since the plan was made';
const SECRET = 'a secret value in the environment differs from the one the plan was made with';

/** Differences between the saved plan and the plan recomputed now. */
export function comparePlans(saved: Plan, fresh: Plan): PlanMismatch[] {
  const out: PlanMismatch[] = [];
  const freshBy = new Map(fresh.changes.map((c) => [c.address, c]));
  const savedBy = new Map(saved.changes.map((c) => [c.address, c]));
  for (const s of saved.changes) {
    if (!isActionable(s)) continue;
    const f = freshBy.get(s.address);
    if (liveChanged(s, f)) out.push({ address: s.address, cause: 'live', reason: LIVE });
    else if (!f || !isActionable(f)) out.push({ address: s.address, cause: 'manifest', reason: 'the saved plan changes it, but it no longer needs that change' });
    else if (essence(s) !== essence(f)) {
      out.push(
        secretFieldsChanged(s, f)
          ? { address: s.address, cause: 'secret', reason: SECRET }
          : { address: s.address, cause: 'manifest', reason: 'the change it needs now differs from the saved one (the manifest changed since the plan was made)' },
      );
    }
  }
  for (const f of fresh.changes) {
    if (!isActionable(f)) continue;
    const s = savedBy.get(f.address);
    if (s && isActionable(s)) continue;
    if (liveChanged(s, f)) out.push({ address: f.address, cause: 'live', reason: LIVE });
    else if (s && onlySecretsChange(f)) out.push({ address: f.address, cause: 'secret', reason: SECRET });
    else out.push({ address: f.address, cause: 'manifest', reason: 'it needs a change the saved plan does not contain (the manifest changed since the plan was made)' });
  }
  return out;
}

/**
 * The command that makes the saved plan again: a `preview up` plan is made by `preview up` (plan
 * has no preview), a partial plan with its targets. `--set` values are not repeated (they may be
 * anything a template field holds): "with the same --set".
 */
export function replanCommand(saved: Plan, file: string): string {
  const preview = saved.options?.preview;
  if (preview) {
    const set = preview.set?.length ? ` (with the same ${preview.set.map((a) => `--set ${shellQuote(a.path)}=...`).join(' ')})` : '';
    return `\`driftless preview up --project ${shellQuote(preview.project)} --number ${preview.number} --out ${shellQuote(file)}\`${set}`;
  }
  const targets = saved.targets?.length ? ` --target ${saved.targets.map(shellQuote).join(' ')}` : '';
  return `\`driftless plan --out ${shellQuote(file)}${targets}\``;
}

/** Why a saved plan cannot be applied now (empty: it can, exactly as saved). */
export function savedPlanRefusals(saved: Plan, fresh: Plan, live: LiveState, file: string): Diagnostic[] {
  const replan = `Run ${replanCommand(saved, file)} again, review it, and apply the new file.`;
  const diags: Diagnostic[] = [];
  const lines: string[] = [];
  const staleAddrs = new Set<string>();
  for (const o of findStaleObjects(saved, live)) {
    staleAddrs.add(o.address);
    lines.push(
      o.current === undefined
        ? `${o.address}: deleted since the plan was made`
        : o.planned === '(absent)'
          ? `${o.address}: created since the plan was made (the plan would create it again)`
          : `${o.address}: changed since the plan was made (version ${o.planned} -> ${o.current})`,
    );
  }
  const mismatches = comparePlans(saved, fresh).filter((m) => !staleAddrs.has(m.address));
  for (const m of mismatches.filter((x) => x.cause === 'live')) lines.push(`${m.address}: ${m.reason}`);
  if (lines.length > 0) {
    diags.push(
      error('apply.stale-plan', `The saved plan ${file} is stale: ${plural(lines.length, 'object')} changed in the live organization since it was made. Nothing was changed.`, {
        detail: `${lines.join('\n')}\n${replan}`,
      }),
    );
  }
  const others = mismatches.filter((m) => m.cause !== 'live');
  if (others.length > 0) {
    diags.push(
      error('apply.plan-mismatch', `The saved plan ${file} no longer matches the manifest and the environment: ${plural(others.length, 'difference')}. Nothing was changed.`, {
        detail: `${others.map((m) => `${m.address}: ${m.reason}`).join('\n')}\n${replan}`,
      }),
    );
  }
  return diags;
}
