/**
 * Where secret values are written in the raw YAML, found by shape alone (it must work on files that
 * failed validation too), so that no excerpt ever shows one. Errs on the side of masking.
 */
import type { SourceRange } from '../diag/diagnostic.js';
import { fieldSourceOf } from './source-map.js';

// `${env:NAME}`, `${env:NAME:-}` and `${file:PATH}`: no secret in them. A default
// (`${env:NAME:-text}`) is text written in the file: masked like a value in clear.
const ONLY_REFERENCES = /\$\{(?:env:[^}:]*(?::-)?|file:[^}]*)\}/g;
const ALWAYS_SECRET_FIELDS = new Set(['webhook_url', 'auth_password']);

export function findSecretRanges(root: unknown): SourceRange[] {
  const out: SourceRange[] = [];
  const visit = (node: unknown, depth: number): void => {
    if (depth > MAX_SECRET_DEPTH || node === null || typeof node !== 'object') return;
    const rec = node as Record<string, unknown>;
    if (!Array.isArray(node)) secretRangesOfMapping(rec, out);
    for (const k of Object.keys(rec)) visit(rec[k], depth + 1);
  };
  visit(root, 0);
  return out;
}

/** How deep findSecretRanges looks (the root is at depth 0). */
export const MAX_SECRET_DEPTH = 80;

/** Appends to `out` where the mapping `rec` itself (not what is below it) shows a secret. */
export function secretRangesOfMapping(rec: Record<string, unknown>, out: SourceRange[]): void {
  // A variable marked secret (or one whose `secret` is malformed: mask anyway).
  if ('secret' in rec && rec.secret !== false && 'value' in rec) mask(rec, 'value', out);
  // A webhook's signing secret.
  if ('secret' in rec && typeof rec.secret !== 'boolean') mask(rec, 'secret', out);
  for (const f of ALWAYS_SECRET_FIELDS) if (f in rec) mask(rec, f, out);
  const tf = rec.tf_vars;
  if (tf && typeof tf === 'object' && 'sensitive_tf_vars' in rec) {
    const names = Array.isArray(rec.sensitive_tf_vars) ? rec.sensitive_tf_vars : Object.keys(tf);
    for (const n of names) if (typeof n === 'string' && n in (tf as object)) mask(tf, n, out);
  }
}

function mask(holder: object, field: string, out: SourceRange[]): void {
  // A value that is only references without defaults shows no secret: keep it readable.
  const v = (holder as Record<string, unknown>)[field];
  if (typeof v === 'string' && v !== '' && v.replace(ONLY_REFERENCES, '') === '') return;
  const r = fieldSourceOf(holder, field);
  if (r) out.push(r);
}
