/**
 * exportManifest: LiveState -> a manifest document (plain data, ready for YAML).
 *
 * It reads the same normalised attrs that `plan` compares (src/live/normalize.ts, shapes in
 * src/graph/attrs.ts) and maps each kind back to the manifest shape of src/manifest/types.ts: the
 * inverse of buildGraph. Each kind's own keys come from its descriptor (src/model/kinds:
 * `toManifestDoc`, a service kind's `service.toManifest`); this module assembles the document.
 * So a manifest written here, loaded and built again, gives the attrs it was read from, and `plan`
 * shows no changes.
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
import { holdsData, holdsVariables, kindDescriptor, serviceMappings } from '../model/kinds/index.js';
import { withoutDefaults } from './defaults.js';
import { PlaceholderAllocator, type SecretPlaceholder } from './placeholders.js';
import { clean, EnvRef, fitDescription, reorder, type Doc, type ExportContext } from './manifest-helpers.js';
export { clean, computeToManifest, computeUnmanaged, EnvRef, fitDescription, gitRepository, healthchecks, obj, ports, storage, strs, type Doc, type ExportContext } from './manifest-helpers.js';

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
    const o = ownKeys(org, ctx) ?? {};
    if (Object.keys(o).length > 0) m.organization = o;
  }
  let annotationGroups = top('annotations_group');
  let labelGroups = top('labels_group');
  if (options.partial) {
    const used = usedGroups(projects);
    annotationGroups = annotationGroups.filter((g) => used.annotation.has(g.name));
    labelGroups = labelGroups.filter((g) => used.label.has(g.name));
  }
  setList(m, 'annotation_groups', docs(annotationGroups, ctx));
  setList(m, 'label_groups', docs(labelGroups, ctx));
  if (!options.partial) {
    setList(m, 'alert_receivers', docs(top('alert_receiver'), ctx));
    setList(m, 'alert_rules', docs(top('alert_rule'), ctx));
    setList(m, 'webhooks', docs(top('webhook'), ctx));
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

/**
 * The object's own keys: its kind's descriptor (src/model/kinds, toManifestDoc). `path`: its name
 * after those of the objects it is under. Undefined: a manifest cannot declare it (ctx has a warning).
 */
function ownKeys(r: LiveResource, ctx: Ctx, path: readonly string[] = [r.name]): Doc | undefined {
  const d = kindDescriptor(r.kind);
  if (!d.toManifestDoc) throw new Error(`internal error: the ${r.kind} kind has no export mapping (toManifestDoc)`);
  return d.toManifestDoc(r, ctx, path);
}

/** The manifest objects of these live objects, in their order (those a manifest cannot declare left out). */
function docs(list: LiveResource[], ctx: Ctx, under: readonly string[] = []): Doc[] {
  return list.flatMap((r) => {
    const doc = ownKeys(r, ctx, [...under, r.name]);
    return doc === undefined ? [] : [doc];
  });
}

function project(p: LiveResource, ctx: Ctx): Doc {
  const kids = ctx.children.get(p.address) ?? [];
  const doc = clean({
    ...ownKeys(p, ctx),
    protect: protectOnExport(p),
    environments: kids.filter((k) => k.kind === 'environment').map((e) => environment(e, ctx, p.name)),
  });
  return reorder({ ...doc, variables: variables(p, ctx, [p.name]) }, ['name', 'description', 'protect', 'variables']);
}

function environment(e: LiveResource, ctx: Ctx, projectName: string): Doc {
  const kids = ctx.children.get(e.address) ?? [];
  const stages = kids
    .filter((k) => k.kind === 'deployment_stage')
    .sort((x, y) => Number(x.attrs.deployment_order ?? 0) - Number(y.attrs.deployment_order ?? 0) || cmp(x.name, y.name));
  const services = kids.filter((k) => isServiceKind(k.kind)).sort((x, y) => cmp(x.name, y.name) || cmp(x.kind, y.kind));
  const doc = clean({
    ...ownKeys(e, ctx, [projectName, e.name]),
    protect: protectOnExport(e),
    deployment_stages: docs(stages, ctx, [projectName, e.name]),
    services: services.map((s) => service(s, ctx, [projectName, e.name, s.name])),
  });
  return reorder({ ...doc, variables: variables(e, ctx, [projectName, e.name]) }, ['name', 'cluster', 'mode', 'protect', 'variables']);
}

function variables(scope: LiveResource, ctx: Ctx, path: string[]): Doc[] {
  const vars = (ctx.children.get(scope.address) ?? []).filter((k) => k.kind === 'variable').sort((x, y) => cmp(x.name, y.name));
  return docs(vars, ctx, path);
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
