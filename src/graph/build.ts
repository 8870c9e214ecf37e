/**
 * buildGraph: Manifest -> DesiredGraph. One DesiredResource per declared object, with its address,
 * parent, dependencies, normalised attrs (see ./attrs.ts), pruning scopes, deploy pins and source
 * range; then a topological order. Pure: problems come back as diagnostics. Each kind's attrs come
 * from its descriptor (src/model/kinds: `attrsFromManifest`, a service kind's `service.fromManifest`).
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { error } from '../diag/diagnostic.js';
import type {
  AlertReceiverSpec,
  AlertRuleSpec,
  EnvironmentSpec,
  Manifest,
  ProjectSpec,
  ServiceSpec,
  WebhookSpec,
} from '../manifest/types.js';
import { sourceOf } from '../manifest/types.js';
import { instantiatedAt, relateDiagnostics, type TemplateLocations } from '../manifest/templates.js';
import type { Address, DesiredGraph, DesiredResource, ResourceKind } from '../model/resource.js';
import { addressOf, SERVICE_KINDS } from '../model/resource.js';
import { holdsVariables, kindDescriptor } from '../model/kinds/index.js';
import type { DeclaredAt, DeclaredAttrs, ManifestSpecOf, ManifestSpecs } from '../model/kinds/descriptor.js';
import { ignoreChangesOf } from './ignore.js';
import { topologicalOrder } from './order.js';
import { pruneKinds } from './prune.js';
import { checkMoved } from './moved.js';
import { protectMarkRoom, protectOf } from './protect.js';
import { serviceAttrs } from './services.js';
import { addVariables, resolveVariables } from './variables.js';
import { checkDescription, lazySource, type GraphBuilder } from './builder.js';

export { pruneKinds } from './prune.js';
export type { GraphBuilder } from './builder.js';

export interface BuildResult {
  graph: DesiredGraph;
  diagnostics: Diagnostic[];
}

export interface BuildOptions {
  /**
   * Where the objects instantiated from templates were written (the load result's `templates`):
   * each such object carries them as `related` (drift shows the template and the override).
   */
  templates?: TemplateLocations;
}

export function buildGraph(manifest: Manifest, opts: BuildOptions = {}): BuildResult {
  const b = newBuilder();
  const m = manifest;

  // Each object's attrs come from its kind's descriptor (src/model/kinds, attrsFromManifest); the
  // walk (addresses, parents, dependencies, diagnostics of references) is this module's.
  if (m.organization) {
    const o = m.organization;
    const { attrs } = declared('organization', o);
    b.add({ address: 'organization', kind: 'organization', name: o.name ?? 'organization', attrs }, o, o);
  }

  for (const c of m.clusters ?? []) {
    b.add({
      address: addressOf('cluster', c.name),
      kind: 'cluster',
      name: c.name,
      attrs: declared('cluster', c).attrs,
    }, c);
  }

  for (const g of m.annotation_groups ?? []) addGroup(b, 'annotations_group', g);
  for (const g of m.label_groups ?? []) addGroup(b, 'labels_group', g);

  for (const r of m.alert_receivers ?? []) addReceiver(b, r);
  for (const w of m.webhooks ?? []) addWebhook(b, w);
  for (const p of m.projects ?? []) addProject(b, p);
  // Alert rules last: their target may be a service declared in a project.
  for (const r of m.alert_rules ?? []) addAlertRule(b, r);

  resolveVariables(b);
  resolveCloneSources(b);

  const { order, cycle } = topologicalOrder(b.resources.values());
  if (cycle) {
    const first = b.resources.get(cycle[0]!);
    b.diagnostics.push(
      error('graph.cycle', `Dependency cycle: ${cycle.join(' -> ')}`, {
        detail: 'Each resource in the cycle needs the next one to exist first. Break the cycle (for example an alias pointing back to itself through another alias, or a database cloned from its own clone).',
        address: cycle[0],
        range: first?.source,
      }),
    );
  }
  const graph: DesiredGraph = { resources: b.resources, order };
  const previews = (m.projects ?? []).filter((p) => p.previews !== undefined).map((p) => ({ project: addressOf('project', p.name), pattern: p.previews!.name }));
  if (previews.length > 0) graph.previews = previews;
  const topPrune = pruneKinds(m.prune, 'organization');
  if (topPrune.length > 0) graph.prune = topPrune;
  if (m.scope !== undefined) graph.scope = m.scope;
  const moved = checkMoved(m.moved, b.resources);
  b.diagnostics.push(...moved.diagnostics);
  if (moved.moved.length > 0) graph.moved = moved.moved;
  if (moved.named.length > 0) graph.movedFrom = moved.named;
  if (opts.templates) {
    for (const r of b.resources.values()) {
      const at = instantiatedAt(opts.templates, r.address);
      if (at) r.related = at;
    }
  }
  return { graph, diagnostics: relateDiagnostics(opts.templates, b.diagnostics) };
}

function newBuilder(): GraphBuilder {
  const resources = new Map<Address, DesiredResource>();
  const diagnostics: Diagnostic[] = [];
  return {
    resources,
    diagnostics,
    pendingVariables: [],
    pendingClones: [],
    add(r, sourceFrom, spec) {
      const existing = resources.get(r.address);
      if (existing) {
        const where = existing.source ? ` (first declared at ${existing.source.file}:${existing.source.start.line}:${existing.source.start.col})` : '';
        diagnostics.push(
          error('graph.duplicate', `${r.address} is declared twice${where}`, {
            detail: 'Each object may be declared once. Remove or rename one of the declarations.',
            address: r.address,
            range: sourceOf(sourceFrom),
          }),
        );
        return undefined;
      }
      // `r` itself becomes the resource (callers build it for this, its keys in the order they are
      // listed), with `source` after them, read from `sourceFrom` when first asked for.
      const res = r as DesiredResource;
      lazySource(res, sourceFrom);
      res.dependsOn = r.dependsOn ?? [];
      const immutable = kindDescriptor(r.kind).immutableFields;
      if (immutable && !res.immutableFields) res.immutableFields = [...immutable];
      const ignore = ignoreChangesOf(r.kind, spec?.ignore_changes, res.attrs, res.deploy);
      if (ignore) res.ignoreChanges = ignore;
      const mark = protectOf(spec);
      if (mark) {
        res.protect = mark;
        diagnostics.push(...protectMarkRoom(res));
      }
      resources.set(r.address, res);
      return res;
    },
  };
}

/** The attrs of a manifest object of a kind that is not a service: its descriptor's mapping. */
function declared<K extends keyof ManifestSpecs>(kind: K, spec: ManifestSpecs[K], at: DeclaredAt = {}): DeclaredAttrs {
  return kindDescriptor(kind).attrsFromManifest!(spec as ManifestSpecOf<K>, at);
}

/** An annotations or labels group: known by its name, its attributes all declared. */
function addGroup<K extends 'annotations_group' | 'labels_group'>(b: GraphBuilder, kind: K, g: ManifestSpecs[K]): void {
  b.add({ address: addressOf(kind, g.name), kind, name: g.name, attrs: declared(kind, g).attrs }, g, g);
}

function addReceiver(b: GraphBuilder, r: AlertReceiverSpec): void {
  const address = addressOf('alert_receiver', r.name);
  const { attrs, sensitiveFields } = declared('alert_receiver', r);
  checkDescription(b, r.description, sensitiveFields ?? [], address, () => sourceOf(r, 'description'));
  b.add({ address, kind: 'alert_receiver', name: r.name, attrs, sensitiveFields }, r, r);
}

function addWebhook(b: GraphBuilder, w: WebhookSpec): void {
  const address = addressOf('webhook', w.target_url);
  const { attrs, sensitiveFields } = declared('webhook', w);
  checkDescription(b, w.description, sensitiveFields ?? [], address, () => sourceOf(w, 'description'));
  b.add({ address, kind: 'webhook', name: w.target_url, attrs, sensitiveFields }, w, w);
}

function addAlertRule(b: GraphBuilder, r: AlertRuleSpec): void {
  const address = addressOf('alert_rule', r.name);
  const { attrs } = declared('alert_rule', r);
  const dependsOn: Address[] = [];
  if ('cluster' in r.target) {
    const c = addressOf('cluster', r.target.cluster);
    if (b.resources.has(c)) dependsOn.push(c);
  } else {
    const t = r.target;
    const env = addressOf('environment', t.environment, addressOf('project', t.project));
    const svc = SERVICE_KINDS.map((k) => addressOf(k, t.service, env)).find((a) => b.resources.has(a));
    if (svc) dependsOn.push(svc);
  }
  // The receivers as the attrs list them (sorted): each must be declared.
  for (const name of attrs.alert_receivers as string[]) {
    const a = addressOf('alert_receiver', name);
    if (b.resources.has(a)) dependsOn.push(a);
    else
      b.diagnostics.push(
        error('ref.unresolved', `alert rule ${r.name}: unknown alert receiver "${name}"`, {
          detail: `Declare it under alert_receivers. Declared: ${[...b.resources.values()].filter((x) => x.kind === 'alert_receiver').map((x) => x.name).join(', ') || '(none)'}.`,
          address,
          range: sourceOf(r, 'receivers'),
        }),
      );
  }
  b.add({ address, kind: 'alert_rule', name: r.name, attrs, dependsOn }, r, r);
}

function addProject(b: GraphBuilder, p: ProjectSpec): void {
  const address = addressOf('project', p.name);
  const { attrs } = declared('project', p);
  const res = b.add({ address, kind: 'project', name: p.name, attrs, prune: pruneKinds(p.prune, 'project') }, p, p);
  if (!res) return;
  addVariables(b, p.variables, res);
  for (const e of p.environments ?? []) addEnvironment(b, e, address);
}

function addEnvironment(b: GraphBuilder, e: EnvironmentSpec, project: Address): void {
  const address = addressOf('environment', e.name, project);
  const { attrs } = declared('environment', e);
  const dependsOn: Address[] = [];
  const cluster = addressOf('cluster', e.cluster);
  if (b.resources.has(cluster)) dependsOn.push(cluster);
  const res = b.add({
    address,
    kind: 'environment',
    name: e.name,
    parent: project,
    attrs,
    dependsOn,
    prune: pruneKinds(e.prune, 'environment'),
  }, e, e);
  if (!res) return;
  addVariables(b, e.variables, res);
  const servicesByName = new Map<string, Address>();
  for (const s of e.services ?? []) {
    const svc = addService(b, s, address);
    if (svc) servicesByName.set(s.name, svc);
  }
  addStages(b, e, address, servicesByName);
}

function addService(b: GraphBuilder, s: ServiceSpec, env: Address): Address | undefined {
  const kind = s.type as ResourceKind;
  const address = addressOf(kind, s.name, env);
  const built = serviceAttrs(s, env, b);
  const res = b.add({
    address,
    kind,
    name: s.name,
    parent: env,
    attrs: built.attrs,
    dependsOn: built.dependsOn,
    sensitiveFields: built.sensitiveFields.length > 0 ? built.sensitiveFields : undefined,
    deploy: built.deploy,
    ...(built.noDeploy ? { noDeploy: true as const } : {}),
    prune: pruneKinds(s.prune, 'service'),
    cloneFrom: built.cloneFrom,
  }, s, s);
  if (!res) return undefined;
  if (holdsVariables(s.type)) addVariables(b, 'variables' in s ? s.variables : undefined, res);
  return address;
}

function addStages(b: GraphBuilder, e: EnvironmentSpec, env: Address, servicesByName: Map<string, Address>): void {
  let previous: string | undefined;
  for (const st of e.deployment_stages ?? []) {
    const address = addressOf('deployment_stage', st.name, env);
    const { attrs } = declared('deployment_stage', st, { previous });
    const members = attrs.services as string[];
    const dependsOn: Address[] = [];
    if (previous !== undefined) dependsOn.push(addressOf('deployment_stage', previous, env));
    for (const name of members) {
      const svc = servicesByName.get(name);
      if (svc) dependsOn.push(svc);
      else
        b.diagnostics.push(
          error('ref.unresolved', `deployment stage ${st.name}: unknown service "${name}"`, {
            detail: `Services of this environment: ${[...servicesByName.keys()].sort().join(', ') || '(none)'}.`,
            address,
            range: sourceOf(st, 'services'),
          }),
        );
    }
    b.add({ address, kind: 'deployment_stage', name: st.name, parent: env, attrs, dependsOn }, st, st);
    previous = st.name;
  }
}

function resolveCloneSources(b: GraphBuilder): void {
  for (const c of b.pendingClones) {
    const db = b.resources.get(c.address);
    if (!db) continue;
    // A source absent from the manifest may still exist live: computePlan checks it there.
    if (b.resources.has(c.source)) db.dependsOn.push(c.source);
  }
  b.pendingClones.length = 0;
}
