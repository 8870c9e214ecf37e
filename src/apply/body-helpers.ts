/**
 * Small helpers of the request bodies (./bodies.ts) and the context they are built in, in a module
 * that does not import the kind registry: the kind descriptors (src/model/kinds) use them, and the
 * registry imports the descriptors (no import cycle).
 */
import type { Address } from '../model/resource.js';
import { isSecretValue } from '../model/secret.js';
import type { IdRegistry } from './refs.js';

type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v) && !isSecretValue(v);

const GIT_FIELDS = ['url', 'branch', 'root_path', 'provider', 'git_token_id'];

export function pick(o: Obj, fields: readonly string[]): Obj {
  const out: Obj = {};
  for (const f of fields) if (o[f] !== undefined) out[f] = o[f];
  return out;
}

/**
 * `pick` for the items of a port, storage or git repository object: a null is left out. The API's
 * document types none of these fields nullable (an unset optional field is absent), so copying a
 * live `"external_port": null` back into a full-replacement PUT would send a value the API's
 * schema refuses; leaving it out keeps the field unset, which is what the null meant.
 */
export function pickSet(o: Obj, fields: readonly string[]): Obj {
  const out: Obj = {};
  for (const f of fields) if (o[f] !== undefined && o[f] !== null) out[f] = o[f];
  return out;
}

/** The git provider a repository URL names (the API requires it beside the URL); GitHub when it names none. */
export function gitProviderOf(url: unknown): string {
  const u = String(url ?? '').toLowerCase();
  if (u.includes('gitlab')) return 'GITLAB';
  if (u.includes('bitbucket')) return 'BITBUCKET';
  return 'GITHUB';
}

export function gitRequest(g: unknown): Obj | undefined {
  if (!isObj(g)) return undefined;
  const out = pickSet(g, GIT_FIELDS);
  if (out.provider === undefined) out.provider = gitProviderOf(out.url);
  return out;
}

export interface BodyContext {
  address: Address;
  refs: IdRegistry;
  /** Key of the secret fingerprints written into descriptions. */
  fingerprintKey: string;
  /** Fingerprints of secrets this request does not write (ignored), kept in the marker as the live record has them. */
  keptFingerprints?: Record<string, string>;
  /** Projects and services: whether the description carries the protect mark (src/plan/protect-mark.ts). */
  protectMark?: boolean;
}
