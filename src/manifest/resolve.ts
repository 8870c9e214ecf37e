/**
 * `${env:NAME}` and `${file:PATH}` resolution, and the wrapping of secret fields into SecretValues.
 *
 * Runs on a schema-valid manifest and rewrites its string values in place. A reference may be the
 * whole value or part of it (`postgres://app:${env:DB_PASSWORD}@db:5432/app`); `$${` writes a
 * literal `${`. Reading files is injected (`readFile`), so that the confinement rules (no `../`
 * escape, no absolute path, no symlink out of the manifest root) live in one place, load.ts.
 *
 * Secret fields (a variable with `secret: true`, an alert receiver's `webhook_url` and
 * `auth_password`, a webhook's `secret`, the terraform `tf_vars` named in `sensitive_tf_vars`)
 * become SecretValues whatever their origin, so that no later stage can print them by accident.
 */
import type { Diagnostic, SourceRange } from '../diag/diagnostic.js';
import { error, warning } from './codes.js';
import { addressOf } from '../model/resource.js';
import { SecretValue } from '../model/secret.js';
import { fieldSourceOf } from './source-map.js';
import type { Manifest, VariableSpec } from './types.js';

export type FileReadResult = { ok: true; text: string } | { ok: false; reason: string };

export interface ResolveDeps {
  env: Record<string, string | undefined>;
  /** Reads `ref` (as written) relative to the manifest file that holds it. */
  readFile(ref: string, manifestFile: string): FileReadResult;
  /** Narrows a value's range to where `needle` is written inside it (for precise carets). */
  refine?(range: SourceRange, needle: string): SourceRange;
}

const REFERENCE = /\$\$\{|\$\{([^}]*)\}/g;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** User text quoted in a message, cut to a readable length. */
function clip(s: string): string {
  return s.length > 60 ? s.slice(0, 57) + '...' : s;
}

/** Resolves the references of one string. Returns undefined (and diagnostics) when one fails. */
export function resolveString(
  s: string,
  range: SourceRange | undefined,
  deps: ResolveDeps,
  out: Diagnostic[],
  address?: string,
): string | undefined {
  if (!s.includes('${')) return s;
  let failed = false;
  // `${env:NAME` without its closing brace would otherwise pass through as literal text.
  if (s.replace(REFERENCE, '').includes('${')) {
    const start = s.replace(/\$\$\{/g, '\0\0\0').search(/\$\{[^}]*$/);
    const fragment = clip(s.slice(Math.max(0, start)));
    out.push(error('ref.unterminated', `\`${fragment}\` is missing its closing brace`, { detail: 'Write ${env:NAME} or ${file:PATH}; write $${ for a literal ${.', range: range && deps.refine ? deps.refine(range, s.slice(Math.max(0, start), Math.max(0, start) + 40)) : range, address }));
    return undefined;
  }
  const at = (needle: string) => (range && deps.refine ? deps.refine(range, needle) : range);
  const result = s.replace(REFERENCE, (whole, inner: string | undefined) => {
    if (whole === '$${') return '${';
    const ref = inner ?? '';
    const colon = ref.indexOf(':');
    const scheme = colon < 0 ? ref : ref.slice(0, colon);
    const arg = colon < 0 ? '' : ref.slice(colon + 1);
    if (scheme === 'env') {
      if (!ENV_NAME.test(arg)) {
        failed = true;
        out.push(error('ref.bad-env-name', `\`${clip(whole)}\` is not a valid environment variable reference`, { detail: 'Write ${env:NAME}, where NAME is letters, digits and underscores and does not start with a digit.', range: at(whole), address }));
        return '';
      }
      // Own string properties only: `${env:constructor}` must not find Object.prototype.constructor.
      const v = Object.prototype.hasOwnProperty.call(deps.env, arg) ? deps.env[arg] : undefined;
      if (typeof v !== 'string') {
        failed = true;
        out.push(error('ref.env-missing', `environment variable \`${arg}\` is not set`, { detail: `The manifest reads it with \${env:${arg}}; set it in the environment that runs driftless.`, range: at(whole), address }));
        return '';
      }
      return v;
    }
    if (scheme === 'file') {
      if (arg === '') {
        failed = true;
        out.push(error('ref.bad-file-path', '`${file:}` needs a path', { detail: 'Write ${file:PATH}, PATH relative to the manifest file.', range: at(whole), address }));
        return '';
      }
      const r = deps.readFile(arg, range?.file ?? '');
      if (!r.ok) {
        failed = true;
        out.push(error('ref.file-unreadable', `cannot read \`${clip(arg)}\`: ${r.reason}`, { detail: 'PATH is relative to the manifest file and must stay inside the manifest directory.', range: at(whole), address }));
        return '';
      }
      return r.text;
    }
    failed = true;
    out.push(error('ref.unknown-scheme', `unknown reference \`${clip(whole)}\``, { detail: 'Allowed: ${env:NAME} and ${file:PATH}. Write $${ for a literal ${.', range: at(whole), address }));
    return '';
  });
  return failed ? undefined : result;
}

/**
 * Resolves every string value of the manifest in place and wraps secret fields. Returns the
 * diagnostics and the ranges of secret values (to be masked in excerpts).
 */
export function resolveManifest(m: Manifest, deps: ResolveDeps): { diagnostics: Diagnostic[]; secretRanges: SourceRange[] } {
  const out: Diagnostic[] = [];
  const secretRanges: SourceRange[] = [];
  const templated = fieldsWithReferences(m);
  const wasTemplate = (holder: object, field: string) => templated.get(holder)?.has(field) ?? false;

  // 1. Plain resolution of every string, everywhere (names cannot hold `${`: the schema forbids it).
  const walk = (node: unknown, depth: number): void => {
    if (depth > 100 || node === null || typeof node !== 'object') return;
    const rec = node as Record<string, unknown>;
    for (const k of Object.keys(rec)) {
      const v = rec[k];
      if (typeof v === 'string' && v.includes('${')) {
        const resolved = resolveString(v, fieldSourceOf(node, k), deps, out);
        if (resolved !== undefined) rec[k] = resolved;
      } else if (typeof v === 'object') walk(v, depth + 1);
    }
  };
  walk(m, 0);

  // 2. Secret fields become SecretValues.
  const wrap = (holder: object, field: string, address: string | undefined): void => {
    const rec = holder as Record<string, unknown>;
    const v = rec[field];
    if (typeof v !== 'string') return;
    rec[field] = new SecretValue(v);
    const range = fieldSourceOf(holder, field);
    if (range) secretRanges.push(range);
    if (!wasTemplate(holder, field) && v !== '') {
      out.push(
        warning('secret.in-clear', 'a secret value is written in clear in the manifest', {
          detail: 'Anyone who can read the repository can read it. Write ${env:NAME} or ${file:PATH} instead.',
          range,
          address,
        }),
      );
    }
  };
  const wrapVars = (vars: VariableSpec[] | undefined, parent: string) => {
    for (const v of vars ?? []) if (v?.secret === true) wrap(v, 'value', addressOf('variable', v.key, parent));
  };
  for (const r of m.alert_receivers ?? []) {
    wrap(r, 'webhook_url', addressOf('alert_receiver', r.name));
    wrap(r, 'auth_password', addressOf('alert_receiver', r.name));
  }
  for (const w of m.webhooks ?? []) wrap(w, 'secret', addressOf('webhook', w.target_url));
  for (const p of m.projects ?? []) {
    const pa = addressOf('project', p.name);
    wrapVars(p.variables, pa);
    for (const e of p.environments ?? []) {
      const ea = addressOf('environment', e.name, pa);
      wrapVars(e.variables, ea);
      for (const s of e.services ?? []) {
        const sa = addressOf(s.type, s.name, ea);
        wrapVars(s.variables, sa);
        if (s.type === 'terraform' && s.tf_vars) {
          for (const name of s.sensitive_tf_vars ?? []) wrap(s.tf_vars, name, sa);
        }
      }
    }
  }
  return { diagnostics: out, secretRanges };
}

/** The fields of each object that hold a `${...}` reference (before resolution). */
function fieldsWithReferences(root: unknown): WeakMap<object, Set<string>> {
  const found = new WeakMap<object, Set<string>>();
  const visit = (node: unknown, depth: number): void => {
    if (depth > 100 || node === null || typeof node !== 'object') return;
    const rec = node as Record<string, unknown>;
    for (const k of Object.keys(rec)) {
      const v = rec[k];
      // Broken references count too: their error is reported, not a secret in clear.
      if (typeof v === 'string' && v.replace(/\$\$\{/g, '').includes('${')) {
        let set = found.get(node);
        if (!set) found.set(node, (set = new Set()));
        set.add(k);
      } else if (typeof v === 'object') visit(v, depth + 1);
    }
  };
  visit(root, 0);
  return found;
}

