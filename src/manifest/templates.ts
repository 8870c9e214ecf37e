/**
 * Environment templates: a project's `templates:` instantiated by the environments that say
 * `template: NAME`, changed by their `overrides:` and `exclude_services:`.
 *
 * Runs inside src/manifest after the files are merged and before any other check, so that every
 * later stage (duplicates, references, resolution, buildGraph, plan) sees the plain manifest it
 * sees without templates: environments with their services, variables and stages written out.
 * Each instantiated value keeps the source range of the place it was written (the template, or
 * the override that changed it), and the expansion returns, per instantiated address, the other
 * places (`TemplateLocations`, carried by the load result beside the manifest):
 * `relateDiagnostics` adds them to every diagnostic about the object, whichever stage reports it,
 * and buildGraph to the object itself (`DesiredResource.related`, which drift shows).
 *
 * The merge rule (a strategic merge, as Kubernetes calls it), applied to a template service and
 * its override:
 *   - mappings merge key by key, recursively (an override says only what changes);
 *   - lists of keyed items merge item by item: `variables` by `key`, `ports` by `name`, `storage`
 *     by `mount_point`; an override item with a new key is added;
 *   - any other list, and every scalar, replaces the template's value.
 */
import type { Diagnostic, RelatedLocation, SourceRange } from '../diag/diagnostic.js';
import { addressOf, type Address, type ResourceKind } from '../model/resource.js';
import { error, warning } from './codes.js';
import { formatRange } from '../diag/excerpt.js';

const placeOf = (r: SourceRange | undefined) => (r ? formatRange(r) : 'another place');
import { validateManifestSchema } from './schema-validate.js';
import { attachFieldSource, attachSource, fieldSourceOf, keySourceOf, KEY_SOURCES } from './source-map.js';
import { knownList, nearest } from './suggest.js';
import { FIELD_SOURCES, SOURCE, sourceOf, type Manifest } from './types.js';
import { checkPreviewDeclaration, previewAssignmentsOf, previewEnvironmentOf } from './previews.js';
import { cloneDeep, copyShallow, mapList, mergeObjects } from './template-merge.js';
export { copyShallow, MERGE_KEYS, mergeObjects } from './template-merge.js';

type Obj = Record<string, unknown>;
/**
 * Where the objects instantiated from templates were written, as the expansion recorded it: by
 * address, the other places of each instantiated object; and the span of every template and
 * override object, for diagnostics that carry a range but no address (`${env:}` resolution walks
 * the manifest without knowing what each value belongs to).
 */
export interface TemplateLocations {
  byAddress: Map<Address, RelatedLocation[]>;
  regions: Array<{ range: SourceRange; related: RelatedLocation[] }>;
}

function record(related: TemplateLocations, address: Address, locations: RelatedLocation[], ...objects: unknown[]): void {
  related.byAddress.set(address, locations);
  for (const o of objects) {
    const range = sourceOf(o);
    if (range?.end) related.regions.push({ range, related: locations });
  }
}

const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const lower = (s: unknown) => String(s).toLowerCase();

/**
 * Expands every project's templates into its environments. Returns a new manifest (the input is
 * not changed) without `templates`, `template`, `overrides` or `exclude_services`, and the
 * problems found: an unknown template, service or variable (with the nearest name), a name both
 * instantiated and declared by the environment, a template name declared twice, and whatever the
 * service schema says of a service once its override is applied.
 */
export function expandTemplates(manifest: Manifest): { manifest: Manifest; diagnostics: Diagnostic[]; incomplete: boolean; templates?: TemplateLocations } {
  const diagnostics: Diagnostic[] = [];
  const related: TemplateLocations = { byAddress: new Map(), regions: [] };
  const projects = manifest.projects as unknown as Obj[] | undefined;
  if (!projects?.some((p) => p.templates !== undefined || p.previews !== undefined || (p.environments as Obj[] | undefined)?.some(usesTemplate))) {
    return { manifest, diagnostics, incomplete: false };
  }
  const out = copyShallow(manifest as unknown as Obj);
  out.projects = mapList(projects, (p) => expandProject(p, diagnostics, related));
  // An environment whose template is unknown lacks what the template declares.
  const incomplete = projects.some((p) => {
    const names = new Set(((p.templates as Obj[] | undefined) ?? []).map((t) => lower(t.name)));
    return ((p.environments as Obj[] | undefined) ?? []).some((e) => e.template !== undefined && !names.has(lower(e.template)));
  });
  return { manifest: out as unknown as Manifest, diagnostics, incomplete, templates: related };
}

/**
 * The diagnostics with, for each one about an instantiated object (its address, or an address
 * inside it), the other places that object was written: where the template defines it and where
 * the environment overrides it (or instantiates it). A place the diagnostic already points at is
 * not repeated.
 */
export function relateDiagnostics(related: TemplateLocations | undefined, diagnostics: readonly Diagnostic[]): Diagnostic[] {
  if (!related || related.byAddress.size === 0) return [...diagnostics];
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const d of diagnostics) {
    if (d.related) {
      out.push(d);
      continue;
    }
    let found: RelatedLocation[] | undefined;
    if (d.address) {
      // The innermost instantiated address that contains the diagnostic's (a variable of a service).
      for (let a: string = d.address; a && !found; a = a.includes('/') ? a.slice(0, a.lastIndexOf('/')) : '') found = related.byAddress.get(a);
    } else if (d.range) {
      found = regionRelated(related, d.range);
    }
    const others = found?.filter((r) => !d.range || !sameStart(r.range, d.range));
    if (!others?.length) {
      out.push(d);
      continue;
    }
    const withRelated = { ...d, related: others };
    if (!d.address) {
      // The same template value resolved once per environment: one diagnostic that names them all.
      const key = JSON.stringify([d.code, d.summary, d.range]);
      if (seen.has(key)) continue;
      seen.add(key);
    }
    out.push(withRelated);
  }
  return out;
}

/**
 * Where an instantiated object (or the instantiated object it is inside: a variable of a service)
 * was written, template first: `defined` at the template, then `overridden` at the environment's
 * override (or `instantiated` at its `template:`). Undefined for an object written out in full.
 */
export function instantiatedAt(related: TemplateLocations | undefined, address: Address): RelatedLocation[] | undefined {
  if (!related) return undefined;
  for (let a: string = address; a; a = a.includes('/') ? a.slice(0, a.lastIndexOf('/')) : '') {
    const found = related.byAddress.get(a);
    if (found) return found;
  }
  return undefined;
}

/** The other places of the innermost template or override object written around `range` (every environment's, for a template's). */
function regionRelated(related: TemplateLocations, range: SourceRange): RelatedLocation[] | undefined {
  const containing = related.regions.filter((r) => contains(r.range, range));
  if (containing.length === 0) return undefined;
  const inner = containing.reduce((a, b) => (before(a.range.start, b.range.start) ? b : a));
  const all = containing.filter((r) => sameStart(r.range, inner.range)).flatMap((r) => r.related);
  return all.filter((r, i) => all.findIndex((x) => x.message === r.message && sameStart(x.range, r.range)) === i);
}

const before = (a: { line: number; col: number }, b: { line: number; col: number }) => a.line < b.line || (a.line === b.line && a.col < b.col);
const contains = (outer: SourceRange, inner: SourceRange) => outer.file === inner.file && !before(inner.start, outer.start) && outer.end !== undefined && before(inner.start, outer.end);

/**
 * The same for problems found in the files before expansion (the schema, numbers): one inside an
 * environment's `overrides` also points at what it overrides in the template, looked up in every
 * file read (a template may be declared in another file than the environment).
 */
export function relateOverrideProblems(files: readonly unknown[], diagnostics: readonly Diagnostic[]): Diagnostic[] {
  // A template may be written in parts, one per file (merge.ts): every part is looked in.
  const templates = new Map<string, Obj[]>();
  const regions: Array<{ starts: Set<string>; related: () => RelatedLocation[] }> = [];
  const projectsOf = (v: unknown) => (isObject(v) && Array.isArray(v.projects) ? (v.projects as unknown[]).filter(isObject) : []);
  for (const file of files) {
    for (const p of projectsOf(file)) {
      for (const t of Array.isArray(p.templates) ? p.templates.filter(isObject) : []) {
        const id = `${lower(p.name)}/${lower(t.name)}`;
        templates.set(id, [...(templates.get(id) ?? []), t]);
      }
    }
  }
  for (const file of files) {
    for (const p of projectsOf(file)) {
      for (const e of Array.isArray(p.environments) ? p.environments.filter(isObject) : []) {
        if (!isObject(e.overrides)) continue;
        const parts = () => templates.get(`${lower(p.name)}/${lower(e.template)}`) ?? [];
        const pickIn = (list: unknown, key: string, name: unknown) => (Array.isArray(list) ? list.filter(isObject).find((x) => (key === 'key' ? x[key] === name : lower(x[key]) === lower(name))) : undefined);
        const pick = (field: 'services' | 'variables', key: string, name: unknown) => parts().map((t) => pickIn(t[field], key, name)).find((x) => x !== undefined);
        const services = e.overrides.services;
        if (isObject(services)) {
          for (const [name, patch] of Object.entries(services)) {
            const entry = keySourceOf(services, name) ?? sourceOf(services, name);
            regions.push({ starts: rangeStarts(patch, entry), related: () => [...located('defined', sourceOf(pick('services', 'name', name))), ...located('overridden', entry)] });
          }
        }
        const variables = e.overrides.variables;
        if (Array.isArray(variables)) {
          variables.forEach((o, i) => {
            const entry = fieldSourceOf(variables, String(i));
            regions.push({ starts: rangeStarts(o, entry), related: () => [...located('defined', sourceOf(pick('variables', 'key', isObject(o) ? o.key : undefined))), ...located('overridden', entry)] });
          });
        }
      }
    }
  }
  if (regions.length === 0) return [...diagnostics];
  return diagnostics.map((d) => {
    if (!d.range || d.related) return d;
    const region = regions.find((r) => r.starts.has(startKey(d.range!)));
    const others = region?.related().filter((r) => !sameStart(r.range, d.range!));
    return others?.length ? { ...d, related: others } : d;
  });
}

const startKey = (r: SourceRange) => `${r.file}:${r.start.line}:${r.start.col}`;

/** The start of every range written inside a value (itself, its keys, its values, recursively). */
function rangeStarts(value: unknown, own: SourceRange | undefined, into = new Set<string>()): Set<string> {
  if (own) into.add(startKey(own));
  if (value === null || typeof value !== 'object') return into;
  const v = value as { [SOURCE]?: SourceRange; [FIELD_SOURCES]?: Record<string, SourceRange>; [KEY_SOURCES]?: Record<string, SourceRange> };
  if (v[SOURCE]) into.add(startKey(v[SOURCE]));
  for (const r of Object.values(v[KEY_SOURCES] ?? {})) into.add(startKey(r));
  for (const [k, r] of Object.entries(v[FIELD_SOURCES] ?? {})) {
    into.add(startKey(r));
    rangeStarts((value as Obj)[k], undefined, into);
  }
  for (const x of Array.isArray(value) ? value : []) rangeStarts(x, undefined, into);
  return into;
}

const sameStart = (a: SourceRange, b: SourceRange) => a.file === b.file && a.start.line === b.start.line && a.start.col === b.start.col;

function usesTemplate(e: Obj): boolean {
  return e.template !== undefined || e.overrides !== undefined || e.exclude_services !== undefined;
}

function expandProject(project: Obj, diagnostics: Diagnostic[], related: TemplateLocations): Obj {
  const templates = new Map<string, Obj>();
  for (const t of (project.templates as Obj[] | undefined) ?? []) {
    const name = String(t.name);
    const first = templates.get(lower(name));
    if (first) {
      diagnostics.push(
        error('manifest.duplicate', `template \`${name}\` is declared twice in project \`${String(project.name)}\``, {
          detail: 'Template names are unique in a project (case-insensitive); rename or remove one.',
          range: sourceOf(t, 'name'),
          related: located('first declared', sourceOf(first, 'name')),
          address: addressOf('project', String(project.name)),
        }),
      );
    } else templates.set(lower(name), t);
  }
  const out = copyShallow(project);
  delete out.templates;
  // What later stages need of the declaration is its names; its overrides were checked by the
  // probe below and are applied only to a preview being made (so their `${env:}` are not read).
  if (isObject(project.previews)) {
    out.previews = copyShallow(project.previews);
    delete (out.previews as Obj).overrides;
  }
  const environments = Array.isArray(project.environments) ? (project.environments as Obj[]) : [];
  const previews = isObject(project.previews) ? project.previews : undefined;
  const previewProblems = checkPreviewDeclaration(project, [...templates.values()].map((t) => String(t.name)));
  diagnostics.push(...previewProblems);
  // A probe preview, named by the pattern, finds what its overrides say wrong of the template.
  if (previews && previewProblems.length === 0) {
    instantiate(previewEnvironmentOf(previews, String(previews.name)), templates, addressOf('project', String(project.name)), diagnostics, { byAddress: new Map(), regions: [] });
  }
  for (const t of templates.values()) {
    if (environments.some((e) => lower(e.template) === lower(t.name))) continue;
    if (previews && lower(previews.template) === lower(t.name)) continue;
    diagnostics.push(
      warning('manifest.unused-template', `template \`${String(t.name)}\` of project \`${String(project.name)}\` is used by no environment`, {
        detail: 'A template creates nothing by itself: name it in an environment with `template:`, or remove it.',
        range: sourceOf(t, 'name'),
        address: addressOf('project', String(project.name)),
      }),
    );
  }
  if (Array.isArray(project.environments)) {
    const pa = addressOf('project', String(project.name));
    out.environments = mapList(project.environments as Obj[], (e) => (usesTemplate(e) ? instantiate(e, templates, pa, diagnostics, related) : e));
  }
  return out;
}

/** One environment with its template's contents written out, overridden and added to. */
function instantiate(env: Obj, templates: Map<string, Obj>, projectAddress: Address, diagnostics: Diagnostic[], related: TemplateLocations): Obj {
  const ea = addressOf('environment', String(env.name), projectAddress);
  const out = copyShallow(env);
  for (const k of ['template', 'overrides', 'exclude_services']) delete out[k];
  const overrides = isObject(env.overrides) ? env.overrides : {};
  const serviceOverrides = isObject(overrides.services) ? overrides.services : {};
  const variableOverrides = Array.isArray(overrides.variables) ? (overrides.variables as Obj[]) : [];
  const excluded = Array.isArray(env.exclude_services) ? (env.exclude_services as string[]) : [];

  if (env.template === undefined) {
    for (const k of ['overrides', 'exclude_services'] as const) {
      if (env[k] !== undefined) {
        diagnostics.push(
          error('manifest.only-with', `\`${k}\` of environment \`${String(env.name)}\` is only allowed with \`template\``, {
            detail: 'It changes the services of a template: name one with `template: NAME`, or write the services in the environment itself.',
            range: keySourceOf(env, k) ?? sourceOf(env, k),
            address: ea,
          }),
        );
      }
    }
    return out;
  }
  const templateName = String(env.template);
  const template = templates.get(lower(templateName));
  const templateKey = keySourceOf(env, 'template') ?? sourceOf(env, 'template');
  if (!template) {
    const hint = nearest(templateName, [...templates.values()].map((t) => String(t.name)));
    diagnostics.push(
      error('ref.unresolved', `environment \`${String(env.name)}\` uses template \`${templateName}\`, which the project does not declare`, {
        detail: `${hint ? `Did you mean \`${hint}\`? ` : ''}Templates of this project: ${knownList([...templates.values()].map((t) => String(t.name)), { none: 'none (declare them under the project\'s `templates:`)' })}.`,
        range: sourceOf(env, 'template'),
        address: ea,
      }),
    );
    return out;
  }

  const templateServices = (Array.isArray(template.services) ? template.services : []) as Obj[];
  const serviceNames = templateServices.map((s) => String(s.name));
  const unknownService = (name: string, what: string, range: SourceRange | undefined) => {
    const hint = nearest(name, serviceNames);
    diagnostics.push(
      error('ref.unresolved', `${what} service \`${name}\`, which template \`${String(template.name)}\` does not declare`, {
        detail: `${hint ? `Did you mean \`${hint}\`? ` : ''}Services of the template: ${knownList(serviceNames, { none: 'none' })}. A service of this environment only is written in its own \`services:\`.`,
        range,
        related: located('template declared', sourceOf(template, 'name')),
        address: ea,
      }),
    );
  };
  const excludedSet = new Set<string>();
  excluded.forEach((name, i) => {
    const range = fieldSourceOf(env.exclude_services, String(i));
    if (!serviceNames.some((n) => lower(n) === lower(name))) unknownService(name, 'environment `' + String(env.name) + '` excludes', range);
    else excludedSet.add(lower(name));
  });
  for (const name of Object.keys(serviceOverrides)) {
    const range = keySourceOf(serviceOverrides, name) ?? sourceOf(serviceOverrides, name);
    if (!serviceNames.some((n) => lower(n) === lower(name))) unknownService(name, 'environment `' + String(env.name) + '` overrides', range);
    else if (excludedSet.has(lower(name))) {
      diagnostics.push(
        error('manifest.exclusive', `service \`${name}\` is both overridden and excluded in environment \`${String(env.name)}\``, {
          detail: 'An excluded service does not exist in this environment: remove the override or the exclusion.',
          range,
          related: located('excluded', fieldSourceOf(env.exclude_services, String(excluded.findIndex((n) => lower(n) === lower(name))))),
          address: ea,
        }),
      );
    }
  }

  // Services: each template service not excluded, with its override merged in.
  const services: Obj[] = [];
  const serviceRanges: SourceRange[] = [];
  for (let i = 0; i < templateServices.length; i++) {
    const ts = templateServices[i]!;
    if (excludedSet.has(lower(ts.name))) continue;
    const overrideName = Object.keys(serviceOverrides).find((n) => lower(n) === lower(ts.name));
    const patch = overrideName === undefined ? undefined : serviceOverrides[overrideName];
    const instance = isObject(patch) ? mergeObjects(ts, patch) : cloneDeep(ts);
    const sa = addressOf(String(ts.type) as ResourceKind, String(ts.name), ea);
    const overrideRange = overrideName === undefined ? undefined : keySourceOf(serviceOverrides, overrideName) ?? sourceOf(serviceOverrides, overrideName);
    const locations = [...located('defined', sourceOf(ts)), ...(overrideRange ? located('overridden', overrideRange) : located('instantiated', templateKey))];
    record(related, sa, locations, ts, patch);
    if (isObject(patch)) diagnostics.push(...checkInstance(instance, env, sa, locations));
    services.push(instance);
    serviceRanges.push(fieldSourceOf(template.services, String(i)) ?? sourceOf(ts)!);
  }

  // Environment variables: the template's, overridden by key.
  const templateVariables = (Array.isArray(template.variables) ? template.variables : []) as Obj[];
  const variables: Obj[] = [];
  const variableRanges: SourceRange[] = [];
  const overridden = new Set<number>();
  templateVariables.forEach((tv, i) => {
    const oi = variableOverrides.findIndex((o) => o.key === tv.key);
    const va = addressOf('variable', String(tv.key), ea);
    if (oi >= 0) overridden.add(oi);
    record(related, va, [...located('defined', sourceOf(tv)), ...(oi >= 0 ? located('overridden', sourceOf(variableOverrides[oi])) : located('instantiated', templateKey))], tv, variableOverrides[oi]);
    variables.push(oi >= 0 ? mergeObjects(tv, variableOverrides[oi]!) : cloneDeep(tv));
    variableRanges.push(fieldSourceOf(template.variables, String(i)) ?? sourceOf(tv)!);
  });
  variableOverrides.forEach((o, i) => {
    if (overridden.has(i)) return;
    // The same key overridden twice (two files of a directory may each write part of `overrides`).
    const first = variableOverrides.findIndex((x) => x.key === o.key);
    if (first !== i && overridden.has(first)) {
      diagnostics.push(
        error('manifest.duplicate', `environment \`${String(env.name)}\` overrides variable \`${String(o.key)}\` twice`, {
          detail: `It is also overridden at ${placeOf(sourceOf(variableOverrides[first], 'key'))}. Keep one of them.`,
          range: sourceOf(o, 'key'),
          address: ea,
        }),
      );
      return;
    }
    const keys = templateVariables.map((v) => String(v.key));
    const hint = nearest(String(o.key), keys);
    diagnostics.push(
      error('ref.unresolved', `environment \`${String(env.name)}\` overrides variable \`${String(o.key)}\`, which template \`${String(template.name)}\` does not declare`, {
        detail: `${hint ? `Did you mean \`${hint}\`? ` : ''}Variables of the template: ${knownList(keys, { none: 'none' })}. A variable of this environment only is written in its own \`variables:\`.`,
        range: sourceOf(o, 'key'),
        related: located('template declared', sourceOf(template, 'name')),
        address: ea,
      }),
    );
  });

  // Deployment stages: the template's, without the excluded services.
  const templateStages = (Array.isArray(template.deployment_stages) ? template.deployment_stages : []) as Obj[];
  const stages: Obj[] = [];
  const stageRanges: SourceRange[] = [];
  templateStages.forEach((st, i) => {
    const copy = cloneDeep(st);
    if (Array.isArray(st.services) && excludedSet.size > 0) {
      const kept: unknown[] = [];
      (st.services as unknown[]).forEach((n, j) => {
        if (excludedSet.has(lower(n))) return;
        const r = fieldSourceOf(st.services, String(j));
        if (r) attachFieldSource(kept, String(kept.length), r);
        kept.push(n);
      });
      attachSource(kept, sourceOf(st, 'services')!);
      copy.services = kept;
    }
    record(related, addressOf('deployment_stage', String(st.name), ea), [...located('defined', sourceOf(st)), ...located('instantiated', templateKey)], st);
    stages.push(copy);
    stageRanges.push(fieldSourceOf(template.deployment_stages, String(i)) ?? sourceOf(st)!);
  });

  const what = `environment \`${String(env.name)}\``;
  setList(out, 'services', addOwn(services, serviceRanges, env, 'services', 'name', lower, `${what} declares service`, template, diagnostics, ea), env, template);
  setList(out, 'variables', addOwn(variables, variableRanges, env, 'variables', 'key', String, `${what} declares variable`, template, diagnostics, ea), env, template);
  setList(out, 'deployment_stages', addOwn(stages, stageRanges, env, 'deployment_stages', 'name', lower, `${what} declares deployment stage`, template, diagnostics, ea), env, template);
  return out;
}

/**
 * The instantiated items followed by the environment's own; an own item whose name an
 * instantiated one has is an error that points at both (the own one is dropped).
 */
function addOwn(instantiated: Obj[], ranges: SourceRange[], env: Obj, field: string, key: string, norm: (v: unknown) => string, what: string, template: Obj, diagnostics: Diagnostic[], ea: Address): { items: Obj[]; ranges: SourceRange[] } {
  const items = [...instantiated];
  const itemRanges = [...ranges];
  const own = Array.isArray(env[field]) ? (env[field] as Obj[]) : [];
  own.forEach((o, i) => {
    const clash = instantiated.find((t) => norm(t[key]) === norm(o[key]));
    if (clash) {
      diagnostics.push(
        error('manifest.duplicate', `${what} \`${String(o[key])}\`, which its template \`${String(template.name)}\` already declares`, {
          detail: `Change it with \`overrides:\` instead${field === 'services' ? ', or leave the template\'s out with `exclude_services:`' : ''}; a name is declared once per environment.`,
          range: sourceOf(o, key),
          related: located('defined', sourceOf(clash)),
          address: ea,
        }),
      );
      return;
    }
    items.push(o);
    itemRanges.push(fieldSourceOf(env[field], String(i)) ?? sourceOf(o)!);
  });
  return { items, ranges: itemRanges };
}

function setList(out: Obj, field: string, list: { items: Obj[]; ranges: SourceRange[] }, env: Obj, template: Obj): void {
  if (list.items.length === 0 && env[field] === undefined) {
    delete out[field];
    return;
  }
  const arr: Obj[] = [];
  attachSource(arr, sourceOf(env, field) ?? sourceOf(template, field) ?? sourceOf(env)!);
  list.items.forEach((item, i) => {
    attachFieldSource(arr, String(i), list.ranges[i]!);
    arr.push(item);
  });
  out[field] = arr;
  attachFieldSource(out, field, sourceOf(env, field) ?? sourceOf(template, field) ?? sourceOf(env)!, keySourceOf(env, field) ?? keySourceOf(template, field));
}

/**
 * An overridden service against the full schema of its kind (the override was only checked
 * against the partial one): a field its kind does not have, a new port without internal_port.
 */
function checkInstance(service: Obj, env: Obj, address: Address, rel: RelatedLocation[]): Diagnostic[] {
  const wrapper = { version: 1, projects: [{ name: 'p', environments: [{ name: String(env.name), cluster: String(env.cluster ?? 'c'), services: [service] }] }] };
  const range = sourceOf(service);
  const sets = previewAssignmentsOf(env, String(service.name));
  return validateManifestSchema(wrapper, range?.file ?? '').map((d) => {
    // A value a `--set` of `preview up` gave has no place in a file: the schema check finds none (and
    // says 1:1), or the place of the value it replaced. The problem names the assignment instead.
    const named = sets.filter((a) => {
      // `cpu` of application `api`; nested: `url` of `git_repository` of application `api`.
      const fields = a.path.slice(String(service.name).length + 1).split('.');
      return fields.slice(-2).every((f) => d.summary.includes(`\`${f}\``));
    });
    const unlocated = d.range?.start.line === 1 && d.range.start.col === 1;
    if (sets.length > 0 && (named.length > 0 || unlocated)) {
      const { range: _elsewhere, ...rest } = d;
      const from = `From the command line: ${(named.length > 0 ? named : sets).map((a) => `\`--set ${a.text}\``).join(', ')}.`;
      return { ...rest, detail: d.detail ? `${d.detail}\n${from}` : from, address, related: rel };
    }
    return { ...d, address, related: rel.filter((r) => !d.range || !sameStart(r.range, d.range)) };
  });
}

/** Where each template/override location was: nothing when it is unknown. */
function located(message: string, range: SourceRange | undefined): RelatedLocation[] {
  return range ? [{ message, range }] : [];
}
