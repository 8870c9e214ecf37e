/**
 * `${env:NAME}` and `${file:PATH}` resolution, and the wrapping of secret fields into SecretValues.
 *
 * Runs on a schema-valid manifest and rewrites its string values in place. A reference may be the
 * whole value or part of it (`postgres://app:${env:DB_PASSWORD}@db:5432/app`); `$${` writes a
 * literal `${`. `${env:NAME:-default}` takes `default` when NAME is unset or empty, and
 * `${env:NAME:-}` is an intentionally empty value (see ./env-reference.ts); without a default, an
 * unset or EMPTY variable is an error (an empty value is how an unconfigured CI secret shows up);
 * for an offline `validate` that runs where secrets are not available (`missingEnv: 'warning'`),
 * an unset one is one warning per variable name listing where it is used. Reading files is injected (`readFile`), so that the confinement rules (no `../`
 * escape, no absolute path, no symlink out of the manifest root) live in one place, load.ts.
 *
 * Secret fields (a variable with `secret: true`, an alert receiver's `webhook_url` and
 * `auth_password`, a webhook's `secret`, the terraform `tf_vars` named in `sensitive_tf_vars`)
 * become SecretValues whatever their origin, so that no later stage can print them by accident.
 */
import type { Diagnostic, SourceRange } from '../diag/diagnostic.js';
import { error, warning } from './codes.js';
import { addressOf } from '../model/resource.js';
import { SecretValue, UnreadSecret } from '../model/secret.js';
import { fieldSourceOf } from './source-map.js';
import type { Manifest, VariableSpec } from './types.js';
import { lookUpEnv, parseEnvArgument } from './env-reference.js';
import { envReader, type EnvRead } from './env-reader.js';
import { formatRange } from '../diag/excerpt.js';
import { serviceMappings } from '../model/kinds/index.js';

export type FileReadResult = { ok: true; text: string } | { ok: false; reason: string };

export interface ResolveDeps {
  env: Record<string, string | undefined>;
  /** Reads `ref` (as written) relative to the manifest file that holds it. */
  readFile(ref: string, manifestFile: string): FileReadResult;
  /** Narrows a value's range to where `needle` is written inside it (for precise carets). */
  refine?(range: SourceRange, needle: string): SourceRange;
  /**
   * How an `${env:NAME}` (without a default) whose variable is not set is reported: an error at
   * each place (the default: plan and apply need every value), or one warning per name (an offline
   * validate, run where secrets are not available). An EMPTY value is an error either way.
   */
  missingEnv?: 'error' | 'warning';
  /**
   * `unread` (`plan --no-secret-values`): the references of secret fields are not resolved at all
   * -- no `${env:}` looked up, no `${file:}` opened -- and each secret field becomes an UnreadSecret.
   * Every other field resolves as usual (a missing `${env:}` there is still reported per
   * `missingEnv`). Default `read`.
   */
  secretValues?: 'read' | 'unread';
  /** How `env` is read during one resolution (resolveManifest makes one: env-reader.ts); absent: `env[name]`. */
  readEnv?: EnvRead;
}

/** Where each variable that was not available is used (missingEnv 'warning'), by name. */
type Unavailable = Map<string, { ranges: Array<SourceRange | undefined>; address?: string; secret?: boolean }>;

const REFERENCE = /\$\$\{|\$\{([^}]*)\}/g;

/** User text quoted in a message, cut to a readable length. */
function clip(s: string): string {
  return s.length > 60 ? s.slice(0, 57) + '...' : s;
}

/**
 * A malformed reference as it can be quoted in a message: what follows the name may be a default
 * value or a secret pasted in the wrong place (`${env:API-KEY:-sk_live_...}`), so only the scheme and
 * the name up to its first wrong character are shown, e.g. `${env:API-…}`. A scheme that is not a
 * short word is not shown either (`${sk_live_...}` has no scheme at all).
 */
export function quotedReference(inner: string, closed = true): string {
  const end = closed ? '}' : '';
  const colon = inner.indexOf(':');
  const scheme = colon < 0 ? inner : inner.slice(0, colon);
  if (!/^[A-Za-z]{1,10}$/.test(scheme)) return `\`\${…${end}\``;
  if (colon < 0) return `\`\${${scheme}${end}\``;
  const name = /^[A-Za-z0-9_]{0,64}/.exec(inner.slice(colon + 1))![0];
  const rest = inner.slice(colon + 1 + name.length);
  return `\`\${${scheme}:${name}${rest === '' ? '' : `${rest[0]}…`}${end}\``;
}

/** Resolves the references of one string. Returns undefined (and diagnostics) when one fails. */
export function resolveString(
  s: string,
  /** Where the string is written: asked for only to report a problem (positions may be built lazily). */
  placeOf: () => SourceRange | undefined,
  deps: ResolveDeps,
  out: Diagnostic[],
  address?: string,
  unavailable?: Unavailable,
  /** The string is a secret field's: a default would be a secret in clear in Git, so none is suggested. */
  secret = false,
): string | undefined {
  if (!s.includes('${')) return s;
  let failed = false;
  // `${env:NAME` without its closing brace would otherwise pass through as literal text.
  if (s.replace(REFERENCE, '').includes('${')) {
    const start = s.replace(/\$\$\{/g, '\0\0\0').search(/\$\{[^}]*$/);
    const range = placeOf();
    out.push(error('ref.unterminated', `${quotedReference(s.slice(Math.max(0, start) + 2), false)} is missing its closing brace`, { detail: 'Write ${env:NAME} or ${file:PATH}; write $${ for a literal ${.', range: range && deps.refine ? deps.refine(range, s.slice(Math.max(0, start), Math.max(0, start) + 40)) : range, address }));
    return undefined;
  }
  const at = (needle: string) => {
    const range = placeOf();
    return range && deps.refine ? deps.refine(range, needle) : range;
  };
  const result = s.replace(REFERENCE, (whole, inner: string | undefined) => {
    if (whole === '$${') return '${';
    const ref = inner ?? '';
    const colon = ref.indexOf(':');
    const scheme = colon < 0 ? ref : ref.slice(0, colon);
    const arg = colon < 0 ? '' : ref.slice(colon + 1);
    if (scheme === 'env') {
      const parsed = parseEnvArgument(arg);
      if (!parsed) {
        failed = true;
        // A secret is given no default to copy: it would be a secret in clear in Git.
        const forms = secret ? '${env:NAME}' : '${env:NAME} or ${env:NAME:-default}';
        out.push(error('ref.bad-env-name', `${quotedReference(ref)} is not a valid environment variable reference`, { detail: `Write ${forms}, where NAME is letters, digits and underscores and does not start with a digit.`, range: at(whole), address }));
        return '';
      }
      const found = lookUpEnv(parsed, deps.readEnv ?? deps.env);
      if (found.kind === 'value') return found.value;
      failed = true;
      const name = parsed.name;
      // Unset is "not available here" (validate without secrets); empty is a bad value everywhere.
      if (found.kind === 'unset' && deps.missingEnv === 'warning' && unavailable) {
        const seen = unavailable.get(name) ?? { ranges: [], ...(address ? { address } : {}) };
        seen.ranges.push(at(whole));
        if (secret) seen.secret = true;
        unavailable.set(name, seen);
        return '';
      }
      if (found.kind === 'empty') {
        out.push(
          error('ref.env-empty', `environment variable \`${name}\` is set but empty`, {
            detail: `The manifest reads it with \${env:${name}}; an empty value is usually a CI secret that was not configured. Set it, or write \${env:${name}:-} if an empty value is intended.`,
            range: at(whole),
            address,
          }),
        );
        return '';
      }
      out.push(
        error('ref.env-missing', `environment variable \`${name}\` is not set`, {
          detail: secret
            ? `The manifest reads it with \${env:${name}} for a secret; set it in the environment that runs driftless (a secret takes no default: it would be written in clear in Git).`
            : `The manifest reads it with \${env:${name}}; set it in the environment that runs driftless, or give a default: \${env:${name}:-default}.`,
          range: at(whole),
          address,
        }),
      );
      return '';
    }
    if (scheme === 'file') {
      if (arg === '') {
        failed = true;
        out.push(error('ref.bad-file-path', '`${file:}` needs a path', { detail: 'Write ${file:PATH}, PATH relative to the manifest file.', range: at(whole), address }));
        return '';
      }
      const r = deps.readFile(arg, placeOf()?.file ?? '');
      if (!r.ok) {
        failed = true;
        out.push(error('ref.file-unreadable', `cannot read \`${clip(arg)}\`: ${r.reason}`, { detail: 'PATH is relative to the manifest file and must stay inside the manifest directory.', range: at(whole), address }));
        return '';
      }
      return r.text;
    }
    failed = true;
    out.push(error('ref.unknown-scheme', `unknown reference ${quotedReference(ref)}`, { detail: `Allowed: \${env:NAME} and \${file:PATH}${secret ? '' : ', and ${env:NAME:-default}'}. Write $\${ for a literal \${.`, range: at(whole), address }));
    return '';
  });
  return failed ? undefined : result;
}

/**
 * Resolves every string value of the manifest in place and wraps secret fields. Returns the
 * diagnostics. (The ranges of secret values were returned too, read by nobody: asking for them
 * built the positions of every file of a manifest without a diagnostic.)
 */
export function resolveManifest(m: Manifest, given: ResolveDeps): { diagnostics: Diagnostic[] } {
  // One reader for the whole walk: a large environment is copied once instead of scanned per name.
  const deps: ResolveDeps = given.readEnv ? given : { ...given, readEnv: envReader(given.env) };
  const out: Diagnostic[] = [];
  /** The fields of each object that held a `${...}` reference, with their text as written: filled by the walk (1.) before it rewrites them. */
  const templated = new WeakMap<object, Map<string, string>>();
  const templateOf = (holder: object, field: string) => templated.get(holder)?.get(field);
  const unavailable: Unavailable = new Map();

  const secretFields = secretFieldsOf(m);
  const unread = deps.secretValues === 'unread';
  /** Secret fields left unresolved (unread mode), by holder. */
  const skipped = new WeakMap<object, Set<string>>();
  if (unread) {
    for (const f of secretFields) {
      const set = skipped.get(f.holder) ?? new Set<string>();
      set.add(f.field);
      skipped.set(f.holder, set);
    }
  }
  const notice = deps.secretValues === 'unread' ? notReadNote : undefined;
  /** Every secret field, by holder: what it reads must never be suggested a default. */
  const secretOf = new WeakMap<object, Set<string>>();
  for (const f of secretFields) secretOf.set(f.holder, (secretOf.get(f.holder) ?? new Set<string>()).add(f.field));
  /**
   * Secret fields under their object's `ignore_changes`: their value is needed only to create the
   * object, so an `${env:NAME}` that is not set leaves them unread (an UnreadSecret; plan refuses to
   * create the object without it) instead of failing. The adoption path: an export marks each
   * secret it cannot know this way, and plan and apply run without values nobody has.
   */
  const optional = new WeakMap<object, Set<string>>();
  for (const f of secretFields) {
    if (!ignores(f.owner, f.ignorePath)) continue;
    const set = optional.get(f.holder) ?? new Set<string>();
    set.add(f.field);
    optional.set(f.holder, set);
  }
  /** Optional secret fields whose variable was not set, with the reference as written. */
  const unset = new WeakMap<object, Map<string, string>>();

  // 1. Plain resolution of every string, everywhere (names cannot hold `${`: the schema forbids it),
  // except the secret fields when their values are not to be read. One walk of the manifest also
  // notes, before rewriting a field, the text of each field that holds a reference (`templated`).
  const walk = (node: unknown, depth: number): void => {
    if (depth > 100 || node === null || typeof node !== 'object') return;
    const rec = node as Record<string, unknown>;
    for (const k of Object.keys(rec)) {
      const v = rec[k];
      if (typeof v !== 'string') {
        if (typeof v !== 'object') continue;
        if (unread && skipped.get(node)?.has(k)) noteReferences(templated, v, depth + 1);
        else walk(v, depth + 1);
        continue;
      }
      // A string without a reference (nearly every one): nothing to note, resolve or skip.
      if (!v.includes('${')) continue;
      noteReference(templated, node, k, v);
      if (unread && skipped.get(node)?.has(k)) continue;
      if (optional.get(node)?.has(k)) {
        const own: Diagnostic[] = [];
        const missing: Unavailable = new Map();
        const resolved = resolveString(v, () => fieldSourceOf(node, k), { ...deps, missingEnv: 'warning' }, own, undefined, missing);
        if (resolved !== undefined) rec[k] = resolved;
        else if (own.length === 0 && missing.size > 0) unset.set(node, (unset.get(node) ?? new Map<string, string>()).set(k, v));
        else out.push(...own);
      } else {
        const before = out.length;
        const resolved = resolveString(v, () => fieldSourceOf(node, k), deps, out, undefined, unavailable, secretOf.get(node)?.has(k) === true);
        if (notice) for (let i = before; i < out.length; i++) out[i] = notice(out[i]!);
        if (resolved !== undefined) rec[k] = resolved;
      }
    }
  };
  walk(m, 0);
  out.push(...unavailableWarnings(unavailable));

  // 2. Secret fields become SecretValues (UnreadSecrets when not read).
  const wrap = (holder: object, field: string, addressOfField: () => string): void => {
    const rec = holder as Record<string, unknown>;
    const v = rec[field];
    if (typeof v !== 'string') return;
    const notSet = unset.get(holder)?.get(field);
    rec[field] = unread ? new UnreadSecret() : notSet !== undefined ? new UnreadSecret(notSet) : new SecretValue(v);
    const template = templateOf(holder, field);
    const clearDefault = template === undefined ? undefined : defaultWrittenInClear(template);
    if (clearDefault !== undefined) {
      out.push(
        // Names the variable only: the default itself is the secret.
        warning('secret.in-clear', `the default of \`\${env:${clearDefault}:-…}\` is a secret value written in clear in the manifest`, {
          detail: 'Anyone who can read the repository can read it. Remove the default (`${env:NAME}`), or write `${env:NAME:-}` for an intentionally empty value.',
          range: fieldSourceOf(holder, field),
          address: addressOfField(),
        }),
      );
    } else if (template === undefined && v !== '') {
      out.push(
        warning('secret.in-clear', 'a secret value is written in clear in the manifest', {
          detail: 'Anyone who can read the repository can read it. Write ${env:NAME} or ${file:PATH} instead.',
          range: fieldSourceOf(holder, field),
          address: addressOfField(),
        }),
      );
    }
  };
  for (const f of secretFields) wrap(f.holder, f.field, f.address);
  return { diagnostics: out };
}

interface SecretField {
  holder: object;
  field: string;
  /** The address a problem of the field is reported at (built when one is). */
  address: () => string;
  /** The object whose `ignore_changes` may name it, and the path it would use. */
  owner: { ignore_changes?: readonly string[] | 'all' };
  ignorePath: string;
}

function ignores(owner: SecretField['owner'], path: string): boolean {
  const ic = owner.ignore_changes;
  return ic === 'all' || (Array.isArray(ic) && ic.includes(path));
}

/**
 * Every secret field of the manifest, found from its structure alone (before any value is read):
 * a variable with `secret: true` (a secret file too: a FILE variable is a variable), an alert
 * receiver's `webhook_url` and `auth_password`, a webhook's `secret`, and the terraform `tf_vars`
 * named in `sensitive_tf_vars`. The one list both the wrapping and `--no-secret-values` use.
 */
export function secretFieldsOf(m: Manifest): SecretField[] {
  const out: SecretField[] = [];
  const vars = (list: VariableSpec[] | undefined, parent: () => string) => {
    for (const v of list ?? []) if (v?.secret === true) out.push({ holder: v, field: 'value', address: () => addressOf('variable', v.key, parent()), owner: v, ignorePath: 'value' });
  };
  for (const r of m.alert_receivers ?? []) {
    out.push({ holder: r, field: 'webhook_url', address: () => addressOf('alert_receiver', r.name), owner: r, ignorePath: 'webhook_url' });
    out.push({ holder: r, field: 'auth_password', address: () => addressOf('alert_receiver', r.name), owner: r, ignorePath: 'auth_password' });
  }
  for (const w of m.webhooks ?? []) out.push({ holder: w, field: 'secret', address: () => addressOf('webhook', w.target_url), owner: w, ignorePath: 'secret' });
  for (const p of m.projects ?? []) {
    const pa = addressOf('project', p.name);
    vars(p.variables, () => pa);
    for (const e of p.environments ?? []) {
      const ea = addressOf('environment', e.name, pa);
      vars(e.variables, () => ea);
      for (const s of e.services ?? []) {
        const sa = () => addressOf(s.type, s.name, ea);
        vars(s.variables, sa);
        // Secret values a service kind holds besides variables (its descriptor's secretMaps: terraform's sensitive tf_vars).
        for (const m of serviceMappings(s.type).secretMaps?.(s as never) ?? []) for (const name of m.fields) out.push({ holder: m.holder, field: name, address: sa, owner: s, ignorePath: m.ignorePath });
      }
    }
  }
  return out;
}

/** Under --no-secret-values, a missing `${env:}` of a plain field says why it is still needed. */
function notReadNote(d: Diagnostic): Diagnostic {
  if (d.code !== 'ref.env-missing' && d.code !== 'ref.env-empty') return d;
  return { ...d, detail: `${d.detail ?? ''} --no-secret-values leaves out only the values of secret fields; this field is not secret, so its value is needed to plan.`.trim() };
}

/** One warning per variable that was not available, naming every place that reads it. */
function unavailableWarnings(unavailable: Unavailable): Diagnostic[] {
  return [...unavailable].map(([name, u]) => {
    const places = u.ranges.filter((r): r is SourceRange => r !== undefined).map(formatRange);
    return warning('ref.env-missing', `environment variable \`${name}\` is not set: the values that read it were not checked`, {
      detail: `Read at ${places.length ? places.join(', ') : 'one place'}. Checked without it here; plan and apply need it set and not empty${
        u.secret ? ' (it is read for a secret: set it where driftless runs, never as a default, which would be a secret in clear in Git).' : ` (or a default: \${env:${name}:-default}).`
      }`,
      ...(u.ranges[0] ? { range: u.ranges[0] } : {}),
      ...(u.address ? { address: u.address } : {}),
    });
  });
}

/** NAME of an `${env:NAME:-text}` with a non-empty text: for a secret field, that text is a secret in clear. */
function defaultWrittenInClear(template: string): string | undefined {
  for (const m of template.replace(/\$\$\{/g, '').matchAll(/\$\{env:([^}]*)\}/g)) {
    const ref = parseEnvArgument(m[1]!);
    if (ref?.fallback) return ref.name;
  }
  return undefined;
}

/**
 * Notes `holder[field]`'s text when it holds a `${...}` reference (broken ones count too: their
 * error is reported, not a secret in clear). The first text noted stays: an object reached twice is
 * seen again after its fields were resolved.
 */
function noteReference(found: WeakMap<object, Map<string, string>>, holder: object, field: string, v: string): void {
  if (!v.includes('${') || !v.replace(/\$\$\{/g, '').includes('${')) return;
  let fields = found.get(holder);
  if (!fields) found.set(holder, (fields = new Map()));
  if (!fields.has(field)) fields.set(field, v);
}

/** noteReference over every field of `node` and below (a secret field left unread, which the walk does not enter). */
function noteReferences(found: WeakMap<object, Map<string, string>>, node: unknown, depth: number): void {
  if (depth > 100 || node === null || typeof node !== 'object') return;
  const rec = node as Record<string, unknown>;
  for (const k of Object.keys(rec)) {
    const v = rec[k];
    if (typeof v === 'string') noteReference(found, node, k, v);
    else if (typeof v === 'object') noteReferences(found, v, depth + 1);
  }
}

