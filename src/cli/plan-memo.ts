/**
 * The plan memo (issue 21): a warm `plan --cache DIR` whose every input is what it was for the
 * last plan prints that plan again instead of making it: nothing parsed, no graph built, no live
 * state normalised, nothing compared. What a plan is made from, and how each is known unchanged:
 *
 * - the manifest files: the load cache's key of their paths and bytes (src/manifest/load-cache.ts);
 * - what resolution read besides them (each `${env:}` variable, each `${file:}` file): read again
 *   and compared through a MAC (the values are never stored: they may be secrets);
 * - the options that shape a plan (`--allow-data-loss`, `--max-destroy`...), the API URL and the
 *   driftless version;
 * - the live state: the refresh cache file the plan was made from (its seal), an audit log with no
 *   event since, the rotation's reads equal to the cache, and the answers read live on every such
 *   run (the organization, the clusters, environments being deployed) equal to that run's
 *   (src/live/refresh.ts `reuse`). The requests are the ones the plan's own read would send.
 *
 * Anything else (a different byte, value, option or answer; an event; a file edited or sealed with
 * another key) and the plan is made as always. The memo is written only after a plan made from a
 * refresh with no event, whose manifest loaded without a diagnostic and whose checks sent no
 * request (their listings are not part of the live read), for the whole manifest (no --target,
 * no preview). It is sealed like the refresh cache (src/live/cache-seal.ts): a memo edited by hand
 * is not used. It holds the plan (which holds no secret value) and names, never a value.
 *
 * Two files: the link (what the run checks before its first request: the files' key, the options,
 * the resolved values' MAC; and what the live read's probe needs) and the memo (the plan: megabytes
 * at 1,000 services), read, checked and parsed while the run waits for the API
 * (ReuseProbe.meanwhile), or once the probe's answers are in.
 */
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import type { Plan } from '../plan/types.js';
import type { LiveSnapshot, ReuseProbe } from '../live/refresh.js';
import { sealOf } from '../live/cache-file.js';
import { cacheSealProblem, sealCache, type CacheKey, type CacheKeyOf } from '../live/cache-seal.js';
import { readReferenceOf, type PreparedManifest, type ResolutionInputs } from '../manifest/prepare.js';
import type { FileReadResult } from '../manifest/resolve.js';
import { envReader } from '../manifest/env-reader.js';
import { readCacheText, replaceCacheFile } from './cache-dir.js';

export const PLAN_MEMO_FILE_NAME = 'driftless-plan-memo.json';
/** What the plan was made from and which refresh cache file: rewritten by every run that reuses it (the memo itself is not). */
export const PLAN_MEMO_LINK_FILE_NAME = 'driftless-plan-memo-link.json';
const KIND = 'driftless-plan-memo';
const LINK_KIND = 'driftless-plan-memo-link';
const FORMAT = 1;
const MAC_LABEL = 'driftless plan-memo inputs v1';

/** What shapes a plan besides the manifest and the live state (a reused plan needs all of them equal). */
export interface MemoOptions {
  allowDataLoss: boolean;
  allowReplace: boolean;
  maxDestroy: number | null;
  noSecretValues: boolean;
}

/**
 * The link: what the plan was made from, but for the resolved values, and which memo holds it (its
 * seal); rewritten by each run that reuses the plan (the refresh cache file it was made from is
 * rewritten by every run).
 */
interface LinkPayload {
  kind: typeof LINK_KIND;
  format_version: number;
  driftless_version: string;
  api_url: string;
  organization_id: string;
  manifest_key: string;
  options: MemoOptions;
  /** The names resolution read, and the files: the values go into inputs_mac only. */
  inputs: { env: string[]; files: Array<{ ref: string; from: string }> };
  inputs_mac: string;
  /** The refresh cache file the answers are in (its seal). */
  snapshot_seal: string;
  /** The answers read live by the run the plan was made from, the organization's included. */
  live_keys: string[];
  live_mac: string;
  /** The manifest files the plan was made from, as shown in diagnostics (PlanPipelineResult.files). */
  files: string[];
  /** The memo's seal. */
  memo_mac: string;
}

interface MemoPayload {
  kind: typeof KIND;
  format_version: number;
  plan: Plan;
}

export interface MemoContext {
  dir: string;
  env: NodeJS.ProcessEnv;
  apiUrl: string;
  driftlessVersion: string;
  keyOf: CacheKeyOf;
  options: MemoOptions;
}

/** The manifest of this run: its files as read, and their key (src/manifest/load.ts preparedManifestKey). */
export interface MemoManifest {
  prepared: PreparedManifest;
  manifestKey: string;
}

/** A plan that may stand for this run's: the live read's probe says whether it does. */
export interface ReusablePlan {
  probe: ReuseProbe;
  /** The plan kept: only once the probe accepted it. */
  plan(): Plan;
  files: string[];
  /** Points the memo at the refresh cache file the run wrote (`seal`), which holds the same answers. */
  renew(seal: string): void;
}

function memoPath(dir: string): string {
  return join(dir, PLAN_MEMO_FILE_NAME);
}

function linkPath(dir: string): string {
  return join(dir, PLAN_MEMO_LINK_FILE_NAME);
}

/** A sealed file's payload, parsed, once its seal holds under the key `keyOf` gives for the organization it names. */
function readSealed<T>(text: string | undefined, keyOf: (payload: T) => CacheKey | undefined): { payload: T; mac: string; key: CacheKey } | undefined {
  const split = text === undefined ? undefined : splitMemo(text);
  if (!split) return undefined;
  let payload: T;
  try {
    payload = JSON.parse(split.payloadText) as T;
  } catch {
    return undefined;
  }
  if (!payload || typeof payload !== 'object') return undefined;
  const key = keyOf(payload);
  // Before anything in it is believed.
  if (!key || cacheSealProblem(split.payloadText, split.seal, key) !== undefined) return undefined;
  return { payload, mac: (split.seal as { mac: string }).mac, key };
}

function macKeyOf(key: CacheKey): Buffer {
  return createHmac('sha256', key.key).update(MAC_LABEL, 'utf8').digest();
}

function inputsMac(macKey: Buffer, env: ReadonlyArray<[string, string | undefined]>, files: ReadonlyArray<{ ref: string; from: string; result: FileReadResult }>): string {
  const text = JSON.stringify({
    env: env.map(([name, value]) => [name, value ?? null]),
    files: files.map((f) => [f.ref, f.from, f.result.ok ? ['ok', f.result.text] : ['error', f.result.reason]]),
  });
  return createHmac('sha256', macKey).update(text, 'utf8').digest('hex');
}

function liveMac(macKey: Buffer, keys: readonly string[], answers: ReadonlyMap<string, string>): string | undefined {
  const h = createHmac('sha256', macKey);
  for (const k of [...keys].sort()) {
    const a = answers.get(k);
    if (a === undefined) return undefined;
    h.update(`${k.length}:${k}\n${a.length}:`, 'utf8').update(a, 'utf8');
  }
  return h.digest('hex');
}

function sameOptions(a: MemoOptions, b: MemoOptions): boolean {
  return a.allowDataLoss === b.allowDataLoss && a.allowReplace === b.allowReplace && a.maxDestroy === b.maxDestroy && a.noSecretValues === b.noSecretValues;
}

/** `{"seal":{...},"payload":` ... `}\n`: the payload's text and the seal, or undefined. */
function splitMemo(text: string): { seal: unknown; payloadText: string } | undefined {
  const m = /^\{"seal":(\{"key_id":"[0-9a-f]{1,64}","mac":"[0-9a-f]{1,128}"\}),"payload":/.exec(text.slice(0, 256));
  if (!m || !text.endsWith('}\n')) return undefined;
  return { seal: JSON.parse(m[1]!) as unknown, payloadText: text.slice(m[0].length, -2) };
}

/**
 * The plan kept in the cache directory when the link says it was made from these files, resolved
 * values, options, API URL and driftless version, else undefined. The memo itself (the plan) is
 * checked later, when the run waits for the API or once the live answers are in.
 */
export function findReusablePlan(ctx: MemoContext, { prepared, manifestKey }: MemoManifest): ReusablePlan | undefined {
  const link = readSealed<LinkPayload>(readCacheText(linkPath(ctx.dir)), (p) => (p.kind === LINK_KIND && p.format_version === FORMAT && typeof p.organization_id === 'string' ? ctx.keyOf(p.organization_id) : undefined));
  if (!link) return undefined;
  const l = link.payload;
  if (l.driftless_version !== ctx.driftlessVersion || l.api_url !== ctx.apiUrl || l.manifest_key !== manifestKey || !sameOptions(l.options, ctx.options)) return undefined;
  const macKey = macKeyOf(link.key);
  // As resolution reads them (one copy of a large environment instead of a getenv() scan per name).
  const readEnv = envReader(ctx.env);
  const env = l.inputs.env.map((name): [string, string | undefined] => [name, readEnv(name)]);
  const files = l.inputs.files.map((f) => ({ ...f, result: readReferenceOf(prepared, f.ref, f.from) }));
  if (inputsMac(macKey, env, files) !== l.inputs_mac) return undefined;
  /** The memo's plan once checked (null: the memo does not stand). */
  let memo: { plan: Plan } | null | undefined;
  const checkMemo = (): { plan: Plan } | null => (memo ??= readMemo(ctx.dir, link.key, l.memo_mac) ?? null);
  let scheduled = false;
  return {
    files: l.files,
    plan: () => {
      // Asked for once the probe accepted, which checked the memo (accept).
      const checked = checkMemo();
      if (!checked) throw new Error('the plan memo was not accepted');
      return checked.plan;
    },
    probe: {
      isFrom: (previous: LiveSnapshot) => previous.organizationId === l.organization_id && sealOf(previous) === l.snapshot_seal,
      liveKeys: l.live_keys,
      meanwhile: () => {
        if (scheduled) return;
        scheduled = true;
        // After this turn of the event loop: the requests just sent go out first.
        setImmediate(checkMemo);
      },
      accept: (answers) => liveMac(macKey, l.live_keys, answers) === l.live_mac && checkMemo() !== null,
    },
    renew: (seal) => {
      try {
        writeSealed(ctx.dir, PLAN_MEMO_LINK_FILE_NAME, JSON.stringify({ ...l, snapshot_seal: seal } satisfies LinkPayload), link.key);
      } catch {
        // Not renewed: the next plan is made as always.
      }
    },
  };
}

/** The memo's plan, when the memo is the link's (its seal). */
function readMemo(dir: string, key: CacheKey, memoMac: string): { plan: Plan } | undefined {
  const memo = readSealed<MemoPayload>(readCacheText(memoPath(dir)), () => key);
  if (!memo || memo.mac !== memoMac || memo.payload.kind !== KIND || memo.payload.format_version !== FORMAT) return undefined;
  // Parsed from the file for this run alone: the caller may change it (its request count).
  return { plan: memo.payload.plan };
}

/** What a plan was made from, for the memo. */
export interface MadePlan {
  organizationId: string;
  manifestKey: string;
  inputs: ResolutionInputs;
  snapshotSeal: string;
  /** CachedReadResult.quiet's answers. */
  answers: ReadonlyMap<string, string>;
  files: string[];
  plan: Plan;
}

/** Keeps a plan for the next run; a failure to write leaves the next run to make its own. */
export function keepPlan(ctx: MemoContext, made: MadePlan): void {
  const key = ctx.keyOf(made.organizationId);
  if (!key) return;
  const macKey = macKeyOf(key);
  const envInputs = [...made.inputs.env.entries()];
  const keys = [...made.answers.keys()];
  const payload: MemoPayload = { kind: KIND, format_version: FORMAT, plan: made.plan };
  try {
    const memoMac = writeSealed(ctx.dir, PLAN_MEMO_FILE_NAME, JSON.stringify(payload), key);
    const link: LinkPayload = {
      kind: LINK_KIND,
      format_version: FORMAT,
      driftless_version: ctx.driftlessVersion,
      api_url: ctx.apiUrl,
      organization_id: made.organizationId,
      manifest_key: made.manifestKey,
      options: ctx.options,
      inputs: { env: envInputs.map(([name]) => name), files: made.inputs.files.map((f) => ({ ref: f.ref, from: f.from })) },
      inputs_mac: inputsMac(macKey, envInputs, made.inputs.files),
      snapshot_seal: made.snapshotSeal,
      live_keys: keys,
      live_mac: liveMac(macKey, keys, made.answers)!,
      files: made.files,
      memo_mac: memoMac,
    };
    writeSealed(ctx.dir, PLAN_MEMO_LINK_FILE_NAME, JSON.stringify(link), key);
  } catch {
    // The memo is an optimisation: without it the next plan is made as always.
  }
}

/** Replaces the sealed file `name` of `dir` atomically, as the cache file is; its seal's MAC. */
function writeSealed(dir: string, name: string, payloadText: string, key: CacheKey): string {
  const seal = sealCache(payloadText, key);
  replaceCacheFile(dir, name, `{"seal":${JSON.stringify(seal)},"payload":${payloadText}}\n`);
  return seal.mac;
}
