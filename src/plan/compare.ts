/**
 * Field-level comparison of desired and live attrs.
 *
 * Ownership: only the fields (and nested sub-fields) the desired side sets are compared; the live
 * value is first projected onto the desired shape, so a sub-field the manifest omits never diffs.
 * Secrets: a SecretValue is never compared or copied; its keyed fingerprint is compared with the one
 * the live record carries in its description marker. A secret that was not read (UnreadSecret,
 * `plan --no-secret-values`) is neither: it is "not compared", and never makes a change by itself.
 */
import type { DesiredResource, LiveResource } from '../model/resource.js';
import { isSecretValue, isUnreadSecret, type SecretValue } from '../model/secret.js';
import { fingerprint } from './fingerprint.js';
import type { FieldChange, SensitivePlaceholder } from './types.js';

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], bb[i])) return false;
    return true;
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !isSecretValue(v);
}

/**
 * The live value restricted to what the desired value owns: object keys the desired side does
 * not set are dropped, recursively (array elements are projected on the desired elements).
 */
export function project(live: unknown, desired: unknown): unknown {
  if (isPlainObject(desired) && isPlainObject(live)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(desired)) if (k in live && live[k] !== undefined) out[k] = project(live[k], desired[k]);
    return out;
  }
  if (Array.isArray(desired) && Array.isArray(live) && desired.length > 0) {
    return live.map((x, i) => project(x, desired[Math.min(i, desired.length - 1)]));
  }
  return live;
}

interface SecretAt {
  /** Marker field name: the attr name at top level, `tf_vars.KEY` for a secret inside a keyed list. */
  field: string;
  value: SecretValue;
}

/**
 * Every SecretValue inside a field's value, with its marker field name: the attr name for a
 * top-level secret; for a nested one, the path below the attr without a trailing `value`, list
 * items named by their `key` (terraform: `tf_vars.DB_PASSWORD`) so a reorder never moves a fingerprint.
 */
export function secretsIn(field: string, value: unknown): readonly SecretAt[] {
  // Most fields hold no secret: say so without building a path (or a list) for every nested value.
  if (!holdsSecret(value)) return NO_SECRETS;
  const out: SecretAt[] = [];
  const walk = (v: unknown, path: string[]): void => {
    if (isSecretValue(v)) {
      if (path.length === 1) out.push({ field: path[0]!, value: v });
      else {
        const rest = path.slice(1);
        if (rest.length > 1 && rest[rest.length - 1] === 'value') rest.pop();
        out.push({ field: rest.join('.'), value: v });
      }
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, [...path, isPlainObject(item) && typeof item.key === 'string' ? item.key : String(i)]));
    } else if (isPlainObject(v)) {
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
    }
  };
  walk(value, [field]);
  return out;
}

/** The answer for a value without secrets: one empty list, never added to. */
const NO_SECRETS: readonly SecretAt[] = Object.freeze([]);

/**
 * Whether a SecretValue is anywhere inside the value, looked for where secretsIn looks (array
 * items, own enumerable members of plain objects), without allocating.
 */
export function holdsSecret(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (isSecretValue(v)) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (holdsSecret(v[i])) return true;
    return false;
  }
  for (const k in v) if (Object.prototype.hasOwnProperty.call(v, k) && holdsSecret((v as Record<string, unknown>)[k])) return true;
  return false;
}

/** The value with every SecretValue removed (object members) so that the rest can be compared. */
function withoutSecrets(v: unknown): unknown {
  if (isSecretValue(v)) return undefined;
  if (Array.isArray(v)) return v.map(withoutSecrets);
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (!isSecretValue(x)) out[k] = withoutSecrets(x);
    return out;
  }
  return v;
}

/** The value with SecretValues replaced by fingerprint placeholders: safe to serialise. */
export function sanitize(v: unknown, fps: Record<string, string>, field: string): unknown {
  const secrets = secretsIn(field, v);
  if (secrets.length === 0) return v;
  const byValue = new Map<SecretValue, string>(secrets.map((s) => [s.value, fps[s.field] ?? '']));
  const walk = (x: unknown): unknown => {
    if (isUnreadSecret(x)) return { sensitive: true, fingerprint: '', not_compared: true } satisfies SensitivePlaceholder;
    if (isSecretValue(x)) return { sensitive: true, fingerprint: byValue.get(x) ?? '' } satisfies SensitivePlaceholder;
    if (Array.isArray(x)) return x.map(walk);
    if (isPlainObject(x)) return Object.fromEntries(Object.entries(x).map(([k, y]) => [k, walk(y)]));
    return x;
  };
  return walk(v);
}

export interface AttrDiff {
  fields: FieldChange[];
  /** Fingerprints of every secret of the desired record (the marker apply writes). */
  fingerprints: Record<string, string>;
}

/** Fingerprints of all secrets of a desired resource. Without a key there are none; an unread secret has none. */
export function desiredFingerprints(d: DesiredResource, key: string | undefined): Record<string, string> {
  const fps: Record<string, string> = {};
  if (key === undefined) return fps;
  for (const field of Object.keys(d.attrs)) {
    for (const s of secretsIn(field, d.attrs[field])) if (!isUnreadSecret(s.value)) fps[s.field] = fingerprint(s.value.reveal(), key);
  }
  return fps;
}

/** Marker field names (`value`, `tf_vars.KEY`...) of the secrets of a desired resource that were not read. */
export function unreadSecretFields(d: DesiredResource): string[] {
  const out: string[] = [];
  for (const field of Object.keys(d.attrs)) for (const s of secretsIn(field, d.attrs[field])) if (isUnreadSecret(s.value)) out.push(s.field);
  return out;
}

/**
 * Changed fields of `desired` against `live` (live attrs may be adjusted by the caller first).
 * `liveAttrs` defaults to live.attrs.
 */
export function diffAttrs(
  desired: DesiredResource,
  live: LiveResource,
  key: string | undefined,
  liveAttrs: Record<string, unknown> = live.attrs,
): AttrDiff {
  const fields: FieldChange[] = [];
  const attrs = desired.attrs;
  const names = Object.keys(attrs);
  // Each field's secrets, looked for once: as desiredFingerprints(desired, key) gives them (same
  // fields, same order), then compared below (a field's comparison needs every fingerprint).
  let secretsAt: Array<readonly SecretAt[] | undefined> | undefined;
  const fingerprints: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) {
    const found = secretsIn(names[i]!, attrs[names[i]!]);
    if (found.length === 0) continue;
    (secretsAt ??= [])[i] = found;
    if (key !== undefined) for (const s of found) if (!isUnreadSecret(s.value)) fingerprints[s.field] = fingerprint(s.value.reveal(), key);
  }
  // A handful of field names at most: looked up in the list, no Set built per resource.
  const immutable = desired.immutableFields ?? [];
  for (let i = 0; i < names.length; i++) {
    const field = names[i]!;
    const after = attrs[field];
    const lv = liveAttrs[field];
    const secrets = secretsAt?.[i] ?? NO_SECRETS;
    if (secrets.length > 0) {
      const rest = withoutSecrets(after);
      const restChanged = !deepEqual(project(withoutSecrets(lv), rest), rest);
      let unknown = false;
      let edited = false;
      let changed = restChanged;
      for (const s of secrets) {
        // Not read: nothing to compare; the rest of the field still is.
        if (isUnreadSecret(s.value)) continue;
        const before = live.fingerprints?.[s.field];
        if (before === undefined) {
          unknown = true;
          if (live.distrustedFingerprints?.includes(s.field)) edited = true;
        } else if (before !== fingerprints[s.field]) changed = true;
      }
      if (changed || unknown) {
        const fc: FieldChange = { field, sensitive: true };
        if (unknown) fc.before_unknown = true;
        if (edited) fc.before_edited = true;
        if (immutable.includes(field)) fc.forces_replace = true;
        fields.push(fc);
      }
      continue;
    }
    const before = lv === undefined ? undefined : project(lv, after);
    if (deepEqual(before, after)) continue;
    const fc: FieldChange = { field, after };
    if (before !== undefined) fc.before = before;
    if (immutable.includes(field)) fc.forces_replace = true;
    fields.push(fc);
  }
  return { fields, fingerprints };
}
