/**
 * exportManifest: LiveState -> a manifest document (plain data, ready for YAML).
 *
 * It reads the same normalised attrs that `plan` compares (src/live/normalize.ts, shapes in
 * src/graph/attrs.ts) and maps each kind back to the manifest shape of src/manifest/types.ts: the
 * inverse of buildGraph. So a manifest written here, loaded and built again, gives the attrs it was
 * read from, and `plan` shows no changes.
 *
 * - Names, never UUIDs (the normaliser already turned ids into names).
 * - A service whose status is NEVER_DEPLOYED is written with `deploy: false`: the plan of the
 *   export leaves it undeployed, as it is live.
 * - Fields equal to their schema default are left out (./defaults.ts), as are empty lists and
 *   descriptions.
 * - Values the API never returns (secret variables, receiver webhook URLs and passwords, webhook
 *   signing secrets, sensitive terraform variables) become `${env:NAME}` placeholders
 *   (./placeholders.ts); every other string has `${` escaped as `$${`, so that the loader reads
 *   back exactly the live text.
 *
 * Pure: no I/O; what cannot be expressed comes back as warnings.
 */
import type { Address, LiveResource, LiveState, ResourceKind } from '../model/resource.js';
import { isServiceKind, type ServiceKind } from '../model/resource.js';
import { holdsData, holdsVariables, serviceMappings } from '../model/kinds/index.js';
import { DESCRIPTION_MAX_LENGTH, markerLength } from '../plan/fingerprint.js';
import { withoutDefaults } from './defaults.js';
import { PlaceholderAllocator, type SecretPlaceholder } from './placeholders.js';
import { clean, EnvRef, obj, strs, type Doc, type ExportContext } from './manifest-helpers.js';
export { clean, computeToManifest, computeUnmanaged, EnvRef, gitRepository, healthchecks, obj, ports, storage, strs, type Doc, type ExportContext } from './manifest-helpers.js';

export interface ExportOptions {
  /**
   * The export covers part of the organization (one project or environment): organization-level
   * objects are left out, except the annotation and label groups its services use (so that the
   * exported file validates on its own).
   */
  partial?: boolean;
}

export interface ExportResult {
  /** The manifest document, keys in a readable order. */
  manifest: ExportedManifest;
  /** The environment variables the manifest reads, in the order they appear. */
  secrets: SecretPlaceholder[];
  /** What could not be exported faithfully (the plan will show it). */
  warnings: string[];
}
type Ctx = ExportContext;

export interface ExportedManifest extends Doc {
  version: 1;
  organization?: Doc;
  annotation_groups?: Doc[];
  label_groups?: Doc[];
  alert_receivers?: Doc[];
  alert_rules?: Doc[];
  webhooks?: Doc[];
  projects?: Doc[];
}

export function exportManifest(live: LiveState, options: ExportOptions = {}): ExportResult {
  const children = new Map<Address | undefined, LiveResource[]>();
  const sorted = [...live.resources.values()].sort((a, b) => cmp(a.address, b.address));
  for (const r of sorted) {
    const list = children.get(r.parent);
    if (list) list.push(r);
    else children.set(r.parent, [r]);
  }
  const ctx: Ctx = { children, secrets: new PlaceholderAllocator(), warnings: [] };
  const top = (kind: ResourceKind) => (children.get(undefined) ?? []).filter((r) => r.kind === kind);

  const projects = top('project').map((p) => project(p, ctx));
  const m: ExportedManifest = { version: 1 };
  const org = live.resources.get('organization');
  if (!options.partial && org) {
    const o = organization(org);
    if (Object.keys(o).length > 0) m.organization = o;
  }
  let annotationGroups = top('annotations_group');
  let labelGroups = top('labels_group');
  if (options.partial) {
    const used = usedGroups(projects);
    annotationGroups = annotationGroups.filter((g) => used.annotation.has(g.name));
    labelGroups = labelGroups.filter((g) => used.label.has(g.name));
  }
  setList(m, 'annotation_groups', annotationGroups.map(annotationGroup));
  setList(m, 'label_groups', labelGroups.map(labelGroup));
  if (!options.partial) {
    setList(m, 'alert_receivers', top('alert_receiver').map((r) => receiver(r, ctx)));
    setList(m, 'alert_rules', top('alert_rule').map(alertRule));
    setList(m, 'webhooks', top('webhook').map((w) => webhook(w, ctx)));
  }
  setList(m, 'projects', projects);
  for (const at of unnamedReferences(m, [])) ctx.warnings.push(`${at}: refers to an object driftless could not find by name (deleted, or not readable with this token); fix it before planning.`);
  return { manifest: escapeStrings(m) as ExportedManifest, secrets: ctx.secrets.list, warnings: ctx.warnings };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function setList(doc: Doc, key: string, list: Doc[]): void {
  if (list.length > 0) doc[key] = list;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function organization(r: LiveResource): Doc {
  const a = r.attrs;
  return clean({
    name: a.name,
    description: a.description,
    website_url: a.website_url,
    repository: a.repository,
    logo_url: a.logo_url,
    icon_url: a.icon_url,
    admin_emails: a.admin_emails,
  });
}

function annotationGroup(r: LiveResource): Doc {
  const annotations: Record<string, string> = {};
  for (const x of (r.attrs.annotations as Array<{ key: string; value: string }>) ?? []) annotations[x.key] = x.value;
  return { name: r.name, annotations, scopes: r.attrs.scopes };
}

function labelGroup(r: LiveResource): Doc {
  const labels = ((r.attrs.labels as Doc[]) ?? []).map((l) => withoutDefaults('label', { key: l.key, value: l.value, propagate_to_cloud_provider: l.propagate_to_cloud_provider }));
  return { name: r.name, labels };
}

/**
 * A secret driftless writes keeps its fingerprint marker in the description, within the API's
 * limit: a longer description is shortened, with a warning. When the secrets are under
 * `ignore_changes` (`unknowable`), driftless writes them (and the marker) only when it creates the
 * object again: the shortened text is for that, and the live description is ignored too, so that
 * adopting the object rewrites neither.
 */
export function fitDescription(doc: Doc, address: string, secretFields: string[], ctx: Ctx, unknowable: string[] = []): void {
  const d = doc.description;
  const room = DESCRIPTION_MAX_LENGTH - markerLength(secretFields);
  if (typeof d !== 'string' || d.length <= room) return;
  doc.description = d.slice(0, room).trimEnd();
  if (unknowable.length > 0) {
    ctx.warnings.push(`${address}: description shortened to ${room} characters (from ${d.length}) for when driftless creates it again (a secret it writes keeps a fingerprint marker in the description); under ignore_changes with its secrets, the live one is kept.`);
    doc.ignore_changes = [...((doc.ignore_changes as string[] | undefined) ?? []), 'description'];
  } else {
    ctx.warnings.push(`${address}: description shortened to ${room} characters (from ${d.length}): a secret driftless writes keeps a fingerprint marker in its description.`);
  }
}

function receiver(r: LiveResource, ctx: Ctx): Doc {
  const a = r.attrs;
  const secret = (field: string) =>
    new EnvRef(ctx.secrets.allocate(['ALERT_RECEIVER', r.name, field], { address: r.address, field, fingerprinted: r.fingerprints?.[field] !== undefined }));
  const doc: Doc = { name: r.name, type: a.type, description: a.description };
  Object.assign(doc, withoutDefaults('alert_receiver', { send_resolved: a.send_resolved, owner: a.owner, severity: a.severity }));
  // Write-only fields: SLACK always has a webhook URL; an EMAIL receiver always has a password.
  if (a.type === 'SLACK') doc.webhook_url = secret('webhook_url');
  Object.assign(doc, { to: a.to, from: a.from, smarthost: a.smarthost, auth_username: a.auth_username });
  // The API requires a password to create an EMAIL receiver (EmailAlertReceiverCreationRequest),
  // with or without a user name: the manifest needs one to recreate the receiver.
  if (a.type === 'EMAIL') doc.auth_password = secret('auth_password');
  Object.assign(doc, withoutDefaults('alert_receiver', { require_tls: a.require_tls }));
  doc.ignore_changes = unknowable(['webhook_url', 'auth_password'].filter((f) => doc[f] !== undefined && r.fingerprints?.[f] === undefined));
  fitDescription(doc, r.address, ['webhook_url', 'auth_password'].filter((f) => doc[f] !== undefined), ctx, (doc.ignore_changes as string[] | undefined) ?? []);
  return clean(doc);
}

function alertRule(r: LiveResource): Doc {
  const a = r.attrs;
  const c = obj(a.condition);
  const doc: Doc = {
    name: r.name,
    description: a.description,
    tag: a.tag,
    target: a.target,
    condition: clean({ ...withoutDefaults('alert_rule_condition', { kind: c.kind, promql: c.promql, operator: c.operator, function: c.function }), threshold: c.threshold }),
    severity: a.severity,
    receivers: a.alert_receivers,
    presentation: a.presentation === undefined ? undefined : clean(obj(a.presentation)),
  };
  Object.assign(doc, withoutDefaults('alert_rule', { for_duration: a.for_duration, enabled: a.enabled }));
  return clean(reorder(doc, ['name', 'description', 'tag', 'target', 'condition', 'for_duration', 'severity', 'enabled', 'receivers', 'presentation']));
}

function webhook(r: LiveResource, ctx: Ctx): Doc {
  const a = r.attrs;
  const doc: Doc = { target_url: a.target_url, description: a.description };
  Object.assign(doc, withoutDefaults('webhook', { kind: a.kind }));
  doc.events = a.events;
  Object.assign(doc, withoutDefaults('webhook', { enabled: a.enabled }));
  if (r.record.target_secret_set === true) {
    doc.secret = new EnvRef(ctx.secrets.allocate(['WEBHOOK', hostAndPath(String(a.target_url)), 'SECRET'], { address: r.address, field: 'target_secret', fingerprinted: r.fingerprints?.target_secret !== undefined }));
  }
  doc.project_names_filter = a.project_names_filter;
  doc.environment_types_filter = a.environment_types_filter;
  doc.ignore_changes = unknowable(doc.secret !== undefined && r.fingerprints?.target_secret === undefined ? ['secret'] : []);
  if (doc.secret !== undefined) fitDescription(doc, r.address, ['target_secret'], ctx, (doc.ignore_changes as string[] | undefined) ?? []);
  return clean(doc);
}

function hostAndPath(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}${u.pathname}`;
  } catch {
    return url;
  }
}

function project(p: LiveResource, ctx: Ctx): Doc {
  const kids = ctx.children.get(p.address) ?? [];
  const doc = clean({
    name: p.name,
    description: p.attrs.description,
    protect: protectOnExport(p),
    environments: kids.filter((k) => k.kind === 'environment').map((e) => environment(e, ctx, p.name)),
  });
  return reorder({ ...doc, variables: variables(p, ctx, [p.name]) }, ['name', 'description', 'protect', 'variables']);
}

function environment(e: LiveResource, ctx: Ctx, projectName: string): Doc {
  const kids = ctx.children.get(e.address) ?? [];
  const stages = kids
    .filter((k) => k.kind === 'deployment_stage')
    .sort((x, y) => Number(x.attrs.deployment_order ?? 0) - Number(y.attrs.deployment_order ?? 0) || cmp(x.name, y.name))
    .map((s) => clean({ name: s.name, description: s.attrs.description, services: s.attrs.services }));
  const services = kids.filter((k) => isServiceKind(k.kind)).sort((x, y) => cmp(x.name, y.name) || cmp(x.kind, y.kind));
  const doc = clean({
    name: e.name,
    cluster: e.attrs.cluster,
    ...withoutDefaults('environment', { mode: e.attrs.mode }),
    protect: protectOnExport(e),
    deployment_stages: stages,
    services: services.map((s) => service(s, ctx, [projectName, e.name, s.name])),
  });
  return reorder({ ...doc, variables: variables(e, ctx, [projectName, e.name]) }, ['name', 'cluster', 'mode', 'protect', 'variables']);
}

function variables(scope: LiveResource, ctx: Ctx, path: string[]): Doc[] {
  const vars = (ctx.children.get(scope.address) ?? []).filter((k) => k.kind === 'variable').sort((x, y) => cmp(x.name, y.name));
  return vars.flatMap((v) => {
    const a = v.attrs;
    const type = String(a.variable_type);
    const isSecret = a.is_secret === true;
    const doc: Doc = { key: v.name };
    if (type === 'ALIAS') {
      // A built-in of a service of this environment by name (live/normalize.ts found it): its
      // hashed key would tie the manifest to this one environment.
      doc.alias = typeof a.aliased_service === 'string' ? { service: a.aliased_service, builtin: a.aliased_builtin } : a.aliased_key;
    } else if (type === 'EXTERNAL_SECRET') {
      doc.external_secret = clean({ secret_manager_access_id: a.secret_manager_access_id, reference: a.reference });
    } else if (type === 'VALUE' || type === 'FILE' || type === 'OVERRIDE') {
      if (type === 'OVERRIDE') doc.override = true;
      doc.value = isSecret
        ? new EnvRef(ctx.secrets.allocate([...path, v.name], { address: v.address, field: 'value', fingerprinted: v.fingerprints?.value !== undefined }))
        : (str(a.value) ?? '');
    } else {
      ctx.warnings.push(`${v.address}: variables of type ${type} cannot be declared in a manifest; left out.`);
      return [];
    }
    if (isSecret) doc.secret = true;
    // An alias takes its mount path from the file it points to; a manifest alias cannot set one.
    if (type !== 'ALIAS') doc.mount_path = a.mount_path;
    doc.description = a.description;
    if (isSecret && doc.value !== undefined && v.fingerprints?.value === undefined) doc.ignore_changes = ['value'];
    if (isSecret && doc.value !== undefined) fitDescription(doc, v.address, ['value'], ctx, (doc.ignore_changes as string[] | undefined) ?? []);
    // The flag means something for a file only; a manifest takes it only with a mount_path.
    if (doc.mount_path !== undefined && doc.mount_path !== null) Object.assign(doc, withoutDefaults('variable', { enable_interpolation_in_file: a.enable_interpolation_in_file }));
    return [clean(doc)];
  });
}

/**
 * `protect: true` on what is costly to lose: every object that holds data (a database) and every PRODUCTION
 * environment, and on every object whose live record carries the protect mark (so that the
 * exported manifest keeps it). Absent otherwise (the manifest then says nothing about it).
 */

function protectOnExport(r: LiveResource): true | undefined {
  if (r.protected === true || holdsData(r.kind)) return true;
  return r.kind === 'environment' && r.attrs.mode === 'PRODUCTION' ? true : undefined;
}

function service(s: LiveResource, ctx: Ctx, path: string[]): Doc {
  const a = s.attrs;
  const head: Doc = {
    name: s.name,
    type: s.kind,
    description: a.description,
    // The API's default icon of the kind (set when none was given) is not worth writing down.
    icon_uri: a.icon_uri === `app://qovery-console/${s.kind}` ? undefined : a.icon_uri,
    annotation_groups: a.annotations_groups,
    label_groups: a.labels_groups,
    // A service never deployed stays so (`deploy: false`): else the plan would deploy it ("never deployed").
    ...withoutDefaults('service', { deploy: s.status?.service_deployment_status !== 'NEVER_DEPLOYED' }),
    protect: protectOnExport(s),
  };
  // The kind's own keys: its descriptor's mapping (src/model/kinds).
  const body = serviceMappings(s.kind as ServiceKind).toManifest(a, s, ctx, path);
  const doc = clean({ ...head, ...body });
  const unowned = unmanagedFields(s);
  if (unowned.length > 0)
    ctx.warnings.push(`${s.address}: ${unowned.join(', ')} set in the API cannot be declared in a manifest; left out (plan never shows them, apply keeps them as they are).`);
  if (Array.isArray(body.sensitive_tf_vars)) fitDescription(doc, s.address, (body.sensitive_tf_vars as string[]).map((k) => `tf_vars.${k}`), ctx, (doc.ignore_changes as string[] | undefined) ?? []);
  // Every scope is written with its variables, `variables: []` when it has none: the manifest owns
  // them, so a variable later added by hand is drift (a scope without the key owns none).
  if (holdsVariables(s.kind)) doc.variables = variables(s, ctx, path);
  return doc;
}

/**
 * Fields a console user sets that a manifest has no key for (the API returns them; driftless
 * neither compares nor writes them), when they hold more than the API's default.
 */
export function unmanagedFields(s: Pick<LiveResource, 'kind' | 'record'>): string[] {
  // An application's or container's healthchecks and storage are exported (computeToManifest).
  if (!isServiceKind(s.kind)) return [];
  return serviceMappings(s.kind).unmanagedFields?.((s.record ?? {}) as Doc) ?? [];
}

/**
 * `ignore_changes` for the secrets an export cannot know (the API never returns them, and
 * driftless did not write them, so no fingerprint says what they hold): adopting the organization
 * must not overwrite them with whatever the placeholders are set to. Their `${env:}` may then stay
 * unset; it is needed only to create the object again.
 */
function unknowable(paths: string[]): string[] | undefined {
  return paths.length > 0 ? paths : undefined;
}

function reorder(doc: Doc, keys: string[]): Doc {
  const out: Doc = {};
  for (const k of keys) if (k in doc) out[k] = doc[k];
  for (const k of Object.keys(doc)) if (!(k in out)) out[k] = doc[k];
  return out;
}

function usedGroups(projects: Doc[]): { annotation: Set<string>; label: Set<string> } {
  const annotation = new Set<string>();
  const label = new Set<string>();
  for (const p of projects)
    for (const e of (p.environments as Doc[] | undefined) ?? [])
      for (const s of (e.services as Doc[] | undefined) ?? []) {
        for (const g of (s.annotation_groups as string[] | undefined) ?? []) annotation.add(g);
        for (const g of (s.label_groups as string[] | undefined) ?? []) label.add(g);
      }
  return { annotation, label };
}

/** Every string escaped for the loader (`${` -> `$${`); placeholders become their `${env:...}` text. */
function escapeStrings(v: unknown): unknown {
  if (v instanceof EnvRef) return v.text;
  if (typeof v === 'string') return v.replace(/\$\{/g, () => '$${');
  if (Array.isArray(v)) return v.map(escapeStrings);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, escapeStrings(x)]));
  return v;
}

/** Paths of the values the normaliser could not turn into a name (`(unknown id ...)`). */
function unnamedReferences(v: unknown, path: string[]): string[] {
  if (typeof v === 'string') return v.startsWith('(unknown id ') ? [path.join('.')] : [];
  if (Array.isArray(v)) return v.flatMap((x, i) => unnamedReferences(x, [...path, String(i)]));
  if (v && typeof v === 'object' && !(v instanceof EnvRef)) {
    const o = v as Doc;
    // A named list item reads better by its name than by its index.
    const here = typeof o.name === 'string' && /^\d+$/.test(path[path.length - 1] ?? '') ? [...path.slice(0, -1), o.name] : path;
    return Object.entries(o).flatMap(([k, x]) => unnamedReferences(x, [...here, k]));
  }
  return [];
}
