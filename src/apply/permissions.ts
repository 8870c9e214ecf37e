/**
 * Before its first write, apply establishes as far as the API allows that its token can do what
 * the plan needs, so that a token without the Deploy scope never leaves a half-done apply
 * (configuration written, every deploy refused with 403).
 *
 * The API has no "what can this token do" endpoint (seed 5: scopes Admin, Read, Deploy, Write; a
 * missing permission is a 403; the reference's api-token listing does not say which token is the
 * caller's, and a policy token's access is only known per request). So each capability the plan
 * needs is probed with a request that needs that scope and cannot change anything, because the
 * object it names does not exist (the nil UUID):
 *  - Write:  DELETE /organization/{id}/labelsGroups/{nil}         -> 404 when allowed, 403 when not
 *  - Deploy: POST /application/{nil}/deploy                       -> 404 when allowed, 403 when not
 * Read is established already: the plan read the live state with the same token.
 *
 * Only a 403 (or 401) is a refusal; any other answer means the request passed authorisation, and
 * an answer that says nothing (5xx, lost connection) leaves the apply to go on, as it did before:
 * the probe narrows the half-done case, it never blocks an apply it cannot judge.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { routes } from '../api/routes.js';
import { SERVICE_KINDS } from '../model/kinds/names.js';
import { error } from '../diag/diagnostic.js';
import type { Plan } from '../plan/types.js';
import { errorStatus, type ApiPort } from '../live/api-port.js';
import { stepActionOf } from './steps.js';
import { plural } from '../render/words.js';

export const NIL_UUID = '00000000-0000-0000-0000-000000000000';

export type Capability = 'Write' | 'Deploy';

/** What the plan's steps need of the token (pure). */
export function capabilitiesNeeded(plan: Plan): { write: number; deploy: number } {
  let write = 0;
  let deploy = 0;
  for (const c of plan.changes) {
    if (c.status !== 'planned') continue;
    if (stepActionOf(c) !== undefined) write++;
    if (c.deploy !== undefined) deploy++;
  }
  return { write, deploy };
}

export interface Probe {
  capability: Capability;
  method: 'DELETE' | 'POST';
  path: string;
  body?: unknown;
}

/** The probes for what the plan needs: each names the nil UUID, so nothing can be changed. */
export function probesFor(plan: Plan): Probe[] {
  const need = capabilitiesNeeded(plan);
  const probes: Probe[] = [];
  if (need.write > 0) probes.push({ capability: 'Write', method: 'DELETE', path: routes.orgListItem(plan.organization_id, 'labelsGroups', NIL_UUID) });
  if (need.deploy > 0) probes.push({ capability: 'Deploy', method: 'POST', path: routes.serviceDeploy(SERVICE_KINDS[0], NIL_UUID), body: {} });
  return probes;
}

/** 'denied' (403), 'unauthorized' (401), 'allowed' (authorised, whatever else it said) or 'unknown'. */
export async function runProbe(api: ApiPort, p: Probe): Promise<'allowed' | 'denied' | 'unauthorized' | 'unknown'> {
  try {
    if (p.method === 'DELETE') await api.delete(p.path);
    else await api.post(p.path, p.body);
    return 'allowed';
  } catch (e) {
    const status = errorStatus(e);
    if (status === 403) return 'denied';
    if (status === 401) return 'unauthorized';
    if (status !== undefined && status >= 400 && status < 500 && status !== 429) return 'allowed';
    return 'unknown';
  }
}

/** Why the token cannot apply this plan (empty: as far as the API tells, it can). */
export async function tokenRefusals(plan: Plan, api: ApiPort): Promise<Diagnostic[]> {
  const need = capabilitiesNeeded(plan);
  const missing: Capability[] = [];
  for (const p of probesFor(plan)) {
    const verdict = await runProbe(api, p);
    if (verdict === 'unauthorized') {
      return [error('apply.token-unauthorized', 'The API token was refused (401) before anything was written. Nothing was changed.', { detail: 'Check DRIFTLESS_API_TOKEN: it is missing, invalid or expired.' })];
    }
    if (verdict === 'denied') missing.push(p.capability);
  }
  if (missing.length === 0) return [];
  const needs: string[] = [];
  if (missing.includes('Write')) needs.push(`Write (the plan creates, changes or deletes ${plural(need.write, 'resource')})`);
  if (missing.includes('Deploy')) needs.push(`Deploy (the plan deploys ${plural(need.deploy, 'service')})`);
  return [
    error('apply.token-scope', `The API token lacks the ${missing.join(' and ')} scope${missing.length > 1 ? 's' : ''} this plan needs. Nothing was changed.`, {
      detail:
        `Missing: ${needs.join('; ')}. The API refused (403) a request that needs ${missing.length > 1 ? 'these scopes' : 'this scope'} and changes nothing. ` +
        'Run apply with a token that has the Write and Deploy scopes (or Admin), so that it never stops half-way with the configuration written and nothing deployed.',
    }),
  ];
}
