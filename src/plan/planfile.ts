/**
 * Saved plans (`plan --out FILE`, `apply FILE`): a versioned JSON document holding the plan (which
 * holds no secret value: sensitive fields carry fingerprints only), the API URL and organization it
 * was made against, the manifest paths, and the live version of every object a step touches, so
 * that apply can refuse a plan whose objects changed since.
 *
 * The whole document is sealed with a keyed MAC (`seal`, see plan-seal.ts): any edit of any field
 * (an action's status, the options, the API URL, the organization, the manifest paths) is refused.
 * The seal only proves that driftless wrote the file; it grants nothing: what an apply may destroy
 * comes from that apply's own command line (see apply/authority.ts).
 *
 * Serialising and parsing are pure; `writePlanFile` / `readPlanFile` are the thin file wrappers.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { Diagnostic } from '../diag/diagnostic.js';
import { error, warning } from '../diag/diagnostic.js';
import type { LiveState } from '../model/resource.js';
import type { Plan } from './types.js';
import { PLAN_FORMAT_VERSION } from './types.js';
import { sealDocument, verifySeal, type PlanSeal, type SealKey } from './plan-seal.js';
import { MAX_JSON_DEPTH, parseBoundedJson } from '../live/bounded-json.js';

export const PLAN_FILE_KIND = 'driftless-plan';

export interface PlanFileDocument {
  kind: typeof PLAN_FILE_KIND;
  format_version: string;
  created_at: string;
  api_url?: string;
  organization_id: string;
  /**
   * The manifest paths the plan was made from, as given on the command line (relative to where
   * `plan` ran), so that `apply FILE` re-reads the same manifest without being told again.
   */
  manifest_paths?: string[];
  plan: Plan;
  /** HMAC-SHA256 of everything above (plan-seal.ts); always the last member. */
  seal: PlanSeal;
}

/** The file's text. `createdAt` is injected so the function stays pure. */
export function serializePlanFile(plan: Plan, createdAt: string, key: SealKey, manifestPaths?: string[]): string {
  const body: Omit<PlanFileDocument, 'seal'> = {
    kind: PLAN_FILE_KIND,
    format_version: PLAN_FORMAT_VERSION,
    created_at: createdAt,
    ...(plan.api_url !== undefined ? { api_url: plan.api_url } : {}),
    organization_id: plan.organization_id,
    ...(manifestPaths && manifestPaths.length > 0 ? { manifest_paths: manifestPaths } : {}),
    plan,
  };
  return JSON.stringify(sealDocument(body, key), null, 2) + '\n';
}

export interface PlanFileExpectations {
  /** The API the apply will talk to: a plan made against another API is refused. */
  apiUrl?: string;
  organizationId?: string;
  /**
   * `show` only: a file sealed with another key than the reader's is returned anyway, with a
   * `planfile.unverified` warning, for display (nothing is applied from it). A tampered or unsealed
   * file is still refused.
   */
  allowOtherKey?: boolean;
}

/**
 * The key the seal is checked with. It comes from the environment of the command reading the
 * file (never from the file): given the organization id the file names, because the fallback key
 * is derived from it.
 */
export type SealKeyOf = (organizationId: string) => SealKey | undefined;

/** Parses and checks a plan file; any problem is a diagnostic naming the file and what to do. */
export interface ParsedPlanFile {
  plan?: PlanFileDocument;
  diagnostics: Diagnostic[];
  /**
   * The key the seal was verified with (this command's, never what the file says): 'fallback'
   * means a key anyone who reads the file can derive, so the seal proves nothing against a forger.
   */
  verifiedWith?: SealKey['source'];
}

export function parsePlanFile(text: string, file: string, keyOf: SealKeyOf, expect: PlanFileExpectations = {}): ParsedPlanFile {
  const fail = (code: string, summary: string, detail: string) => ({ diagnostics: [error(code, summary, { detail, range: { file, start: { line: 1, col: 1 } } })] });
  const replan = 'Run `driftless plan --out FILE` again and apply the new file.';
  // The same advice after "or": only its first letter lowered (`--out FILE` keeps its placeholder).
  const orReplan = `r${replan.slice(1)}`;
  // Bounded: a file nested beyond anything driftless writes would crash every walk over it.
  const parsed = parseBoundedJson(text);
  if ('problem' in parsed) {
    if (parsed.problem === 'not JSON') return fail('planfile.corrupt', `${file} is not a driftless plan file (not valid JSON)`, `The file may be truncated or not a plan. ${replan}`);
    return fail('planfile.too-deep', `${file} is not a driftless plan file: ${parsed.problem}`, `driftless reads JSON nested at most ${MAX_JSON_DEPTH} levels deep; no plan it writes comes near. ${replan}`);
  }
  const doc: unknown = parsed.value;
  const d = doc as Partial<PlanFileDocument> | null;
  if (d === null || typeof d !== 'object' || Array.isArray(d) || d.kind !== PLAN_FILE_KIND) {
    return fail('planfile.foreign', `${file} is not a driftless plan file`, `Expected a JSON document with "kind": "${PLAN_FILE_KIND}" (written by \`driftless plan --out\`). A manifest is applied with \`driftless apply PATH\`.`);
  }
  if (typeof d.format_version !== 'string' || major(d.format_version) !== major(PLAN_FORMAT_VERSION)) {
    return fail(
      'planfile.version',
      `${file} has plan format ${String(d.format_version)}; this driftless reads format ${PLAN_FORMAT_VERSION}`,
      `The plan was written by another version of driftless. ${replan}`,
    );
  }
  const key = typeof d.organization_id === 'string' ? keyOf(d.organization_id) : undefined;
  if (!key) return fail('planfile.corrupt', `${file} is damaged: it names no organization`, `The file was edited or truncated after it was written. ${replan}`);
  const verdict = verifySeal(d as Record<string, unknown>, key);
  const notes: Diagnostic[] = [];
  if (verdict === 'other-key' && expect.allowOtherKey) {
    notes.push(warning('planfile.unverified', `${file} is shown unverified: it was sealed with another key than this command's ${key.source === 'env' ? 'DRIFTLESS_FINGERPRINT_KEY' : 'key derived from the organization id (DRIFTLESS_FINGERPRINT_KEY is not set)'}`, { detail: `${sealedWith(d.seal)}Run with the DRIFTLESS_FINGERPRINT_KEY the plan was made with to verify it.`, range: { file, start: { line: 1, col: 1 } } }));
  } else if (verdict !== 'valid') {
    const why: Record<Exclude<typeof verdict, 'valid'>, [string, string]> = {
      unsealed: [`${file} has no seal: it was not written by this version of driftless, or its seal was removed`, `A plan file must carry the seal \`driftless plan --out\` writes. ${replan}`],
      'other-key': [
        `${file} was sealed with another key than this apply's ${key.source === 'env' ? 'DRIFTLESS_FINGERPRINT_KEY' : 'key derived from the organization id (DRIFTLESS_FINGERPRINT_KEY is not set)'}`,
        `${sealedWith(d.seal)}Plan and apply must run with the same DRIFTLESS_FINGERPRINT_KEY (set, or unset, in both). Nothing was changed.`,
      ],
      tampered: [`${file} was edited after it was written: its content does not match its seal`, `A saved plan is applied exactly as it was written. Nothing was changed. ${replan}`],
    };
    const [summary, detail] = why[verdict];
    return fail(`planfile.${verdict}`, summary, detail);
  }
  if (!d.plan || typeof d.plan !== 'object' || !Array.isArray(d.plan.changes) || d.plan.organization_id !== d.organization_id || d.plan.api_url !== d.api_url) {
    return fail('planfile.corrupt', `${file} is damaged: its plan does not match its header`, `The file was not written by \`driftless plan --out\`. ${replan}`);
  }
  if (expect.apiUrl !== undefined && d.api_url !== undefined && trimSlash(d.api_url) !== trimSlash(expect.apiUrl)) {
    return fail('planfile.wrong-target', `${file} was planned against ${d.api_url}, not ${expect.apiUrl}`, `Apply it with the same DRIFTLESS_API_URL, or ${orReplan}`);
  }
  if (expect.organizationId !== undefined && d.organization_id !== expect.organizationId) {
    return fail('planfile.wrong-target', `${file} was planned for organization ${String(d.organization_id)}, not ${expect.organizationId}`, `Use a token of the organization the plan was made for, or ${orReplan}`);
  }
  return { plan: d as PlanFileDocument, diagnostics: notes, ...(verdict === 'valid' ? { verifiedWith: key.source } : {}) };
}

/** What the file says of its key (never the key): a hint for the user, not a proof. */
function sealedWith(seal: unknown): string {
  const source = (seal as { key_source?: unknown } | undefined)?.key_source;
  if (source === 'fallback') return 'The file says it was sealed without DRIFTLESS_FINGERPRINT_KEY (with the key derived from the organization id). ';
  if (source === 'env') return 'The file says it was sealed with a DRIFTLESS_FINGERPRINT_KEY. ';
  return '';
}

function major(v: string): string {
  return v.split('.')[0] ?? v;
}

function trimSlash(u: string): string {
  return u.replace(/\/+$/, '');
}

export interface StaleObject {
  address: string;
  planned: string;
  /** Current version, or undefined when the object no longer exists. */
  current?: string;
}

/**
 * Objects the plan relies on whose live version differs from the one the plan saw (edited or
 * deleted since), and objects the plan creates that now exist. Empty: the plan is still valid.
 */
export function findStaleObjects(plan: Plan, live: LiveState): StaleObject[] {
  const stale: StaleObject[] = [];
  // The plan records objects at their desired address; a renamed one (`moved`, carried by the
  // plan as `previous_address`) is still live at its old address until the apply renames it.
  const previous = new Map<string, string>();
  for (const c of plan.changes) if (c.previous_address !== undefined) previous.set(c.address, c.previous_address);
  // A service replacing one of another kind (plan/kind-change.ts) recorded that one's id and version.
  for (const c of plan.changes) if (c.replaces !== undefined) previous.set(c.address, c.replaces.address);
  for (const [address, seen] of Object.entries(plan.live_objects)) {
    const now = live.resources.get(previous.get(address) ?? address);
    if (!now) stale.push({ address, planned: seen.version });
    else if (now.version !== seen.version || now.id !== seen.id) stale.push({ address, planned: seen.version, current: now.version });
  }
  for (const c of plan.changes) {
    if (c.actions[0] !== 'create' || c.status !== 'planned') continue;
    const now = live.resources.get(c.address);
    if (now) stale.push({ address: c.address, planned: '(absent)', current: now.version });
  }
  return stale;
}

export async function writePlanFile(path: string, plan: Plan, key: SealKey, createdAt: string = new Date().toISOString(), manifestPaths?: string[]): Promise<void> {
  await writeFile(path, serializePlanFile(plan, createdAt, key, manifestPaths), { encoding: 'utf8', mode: 0o600 });
}

export async function readPlanFile(path: string, keyOf: SealKeyOf, expect: PlanFileExpectations = {}): Promise<ParsedPlanFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    return { diagnostics: [error('planfile.unreadable', `cannot read plan file ${path} (${code})`, { detail: 'Check the path given to `driftless apply`.' })] };
  }
  return parsePlanFile(text, path, keyOf, expect);
}
