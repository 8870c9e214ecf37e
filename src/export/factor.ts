/**
 * `export --factor`: a project whose environments run the same services is written with one
 * environment template (`templates:`) and, per environment, only what differs (`overrides:`,
 * `exclude_services:`, its own services and variables).
 *
 * Exactness comes first: every template and override is checked by expanding it with the loader's
 * own merge rule (src/manifest/templates.ts) and comparing with what the environment has; a
 * service or variable that an override cannot express exactly (a field the template sets and this
 * environment does not have, a keyed item it lacks, a different kind) stays written out in the
 * environment, with the template's copy excluded there. So the factored manifest plans exactly as
 * the plain export does.
 *
 * The template holds what environments share: a service present (same name and kind) in two
 * environments or more; per field, the value most environments have (the first environment's on a
 * tie); a field only when every environment sets it. Pure: plain data in, plain data out.
 */
import { isDeepStrictEqual } from 'node:util';
import { MERGE_KEYS, mergeObjects } from '../manifest/templates.js';
import type { Doc, ExportedManifest } from './to-manifest.js';

const isObject = (v: unknown): v is Doc => v !== null && typeof v === 'object' && !Array.isArray(v);
const lower = (s: unknown) => String(s).toLowerCase();
/** An own property even for a key like `__proto__` (a helm chart's values may hold one). */
const setOwn = (o: Doc, k: string, v: unknown) => Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
const serviceId = (s: Doc) => `${String(s.type)}:${lower(s.name)}`;

export function factorManifest(m: ExportedManifest): ExportedManifest {
  if (!m.projects) return m;
  return { ...m, projects: m.projects.map(factorProject) };
}

/** One project with its shared services in a template; unchanged when no service is shared. */
export function factorProject(project: Doc): Doc {
  const envs = (project.environments as Doc[] | undefined) ?? [];
  const servicesOf = (e: Doc) => (e.services as Doc[] | undefined) ?? [];
  const count = new Map<string, number>();
  for (const e of envs) for (const s of servicesOf(e)) count.set(serviceId(s), (count.get(serviceId(s)) ?? 0) + 1);
  const shared = new Set([...count].filter(([, n]) => n >= 2).map(([id]) => id));
  if (shared.size === 0) return project;
  const members = envs.filter((e) => servicesOf(e).some((s) => shared.has(serviceId(s))));
  const templateName = String(project.name);

  // Template services, in the order of their first appearance.
  const templateServices: Doc[] = [];
  const seen = new Set<string>();
  for (const e of members) {
    for (const s of servicesOf(e)) {
      const id = serviceId(s);
      if (!shared.has(id) || seen.has(id)) continue;
      seen.add(id);
      templateServices.push(common(members.map((x) => servicesOf(x).find((y) => serviceId(y) === id)).filter(isObject)));
    }
  }
  const templateVariables = commonVariables(members);

  const out: Doc[] = [];
  const plans = members.map((e) => planEnvironment(e, templateServices, templateVariables));
  const stages = commonStages(members, plans.map((p) => p.excluded));
  for (const e of envs) {
    const i = members.indexOf(e);
    out.push(i < 0 ? e : writeEnvironment(e, templateName, plans[i]!, stages !== undefined));
  }
  const template: Doc = { name: templateName };
  if (templateVariables.length > 0) template.variables = templateVariables;
  if (stages && stages.length > 0) template.deployment_stages = stages;
  template.services = templateServices;
  const result: Doc = {};
  // `templates` right before `environments`, which refer to it.
  for (const [k, v] of Object.entries(project)) {
    if (k === 'environments') result.templates = [template];
    result[k] = k === 'environments' ? out : v;
  }
  return result;
}

interface EnvironmentPlan {
  /** Template services this environment lacks, or has in a form an override cannot express. */
  excluded: string[];
  serviceOverrides: Doc;
  ownServices: Doc[];
  variableOverrides: Doc[];
  ownVariables: Doc[];
}

function planEnvironment(e: Doc, templateServices: Doc[], templateVariables: Doc[]): EnvironmentPlan {
  const services = (e.services as Doc[] | undefined) ?? [];
  const plan: EnvironmentPlan = { excluded: [], serviceOverrides: {}, ownServices: [], variableOverrides: [], ownVariables: [] };
  const expressed = new Set<Doc>();
  for (const t of templateServices) {
    const mine = services.find((s) => lower(s.name) === lower(t.name));
    const patch = mine && mine.type === t.type ? overrideFor(t, mine) : undefined;
    if (!mine || patch === undefined) {
      plan.excluded.push(String(t.name));
      continue;
    }
    expressed.add(mine);
    if (Object.keys(patch).length > 0) setOwn(plan.serviceOverrides, String(t.name), patch);
  }
  plan.ownServices = services.filter((s) => !expressed.has(s));

  const vars = (e.variables as Doc[] | undefined) ?? [];
  const usedVars = new Set<Doc>();
  for (const t of templateVariables) {
    // commonVariables keeps only what every member can express.
    const mine = vars.find((v) => v.key === t.key)!;
    usedVars.add(mine);
    const patch = overrideFor(t, mine)!;
    if (Object.keys(patch).length > 0) plan.variableOverrides.push({ key: t.key, ...patch });
  }
  plan.ownVariables = vars.filter((v) => !usedVars.has(v));
  return plan;
}

function writeEnvironment(e: Doc, template: string, plan: EnvironmentPlan, stagesInTemplate: boolean): Doc {
  const out: Doc = {};
  // The template and what changes in it first, right after the environment's own settings.
  for (const [k, v] of Object.entries(e)) if (k === 'name' || k === 'cluster' || k === 'mode') out[k] = v;
  out.template = template;
  if (plan.excluded.length > 0) out.exclude_services = plan.excluded;
  const overrides: Doc = {};
  if (Object.keys(plan.serviceOverrides).length > 0) overrides.services = plan.serviceOverrides;
  if (plan.variableOverrides.length > 0) overrides.variables = plan.variableOverrides;
  if (Object.keys(overrides).length > 0) out.overrides = overrides;
  for (const [k, v] of Object.entries(e)) {
    if (k in out || k === 'services' || k === 'variables' || (k === 'deployment_stages' && stagesInTemplate)) continue;
    out[k] = v;
  }
  // `variables: []` is kept: an environment that lists variables (even none) owns them.
  if (e.variables !== undefined) out.variables = plan.ownVariables;
  if (plan.ownServices.length > 0) out.services = plan.ownServices;
  return out;
}

/**
 * What an override must say to turn `template` into `instance`, checked by applying it; undefined
 * when no override can (the template sets something the instance does not have).
 */
export function overrideFor(template: Doc, instance: Doc): Doc | undefined {
  const patch: Doc = {};
  for (const [k, v] of Object.entries(instance)) {
    if (k === 'type' || k === 'name' || k === 'key') continue;
    const t = template[k];
    if (isDeepStrictEqual(t, v)) continue;
    setOwn(patch, k, isObject(t) && isObject(v) ? objectDiff(t, v) : MERGE_KEYS[k] && Array.isArray(t) && Array.isArray(v) ? keyedDiff(t, v, MERGE_KEYS[k]!) : v);
  }
  const merged = mergeObjects(template, patch);
  return sameData(merged, instance) ? patch : undefined;
}

function objectDiff(t: Doc, v: Doc): Doc {
  const d: Doc = {};
  for (const [k, x] of Object.entries(v)) if (!isDeepStrictEqual(t[k], x)) setOwn(d, k, isObject(t[k]) && isObject(x) ? objectDiff(t[k] as Doc, x) : x);
  return d;
}

function keyedDiff(t: unknown[], v: unknown[], key: string): unknown[] {
  const d: unknown[] = [];
  for (const item of v) {
    if (!isObject(item)) return v;
    const base = t.find((x) => isObject(x) && x[key] === item[key]);
    if (isDeepStrictEqual(base, item)) continue;
    d.push(isObject(base) ? { [key]: item[key], ...objectDiff(base, item) } : item);
  }
  return d;
}

/** Equal as data: the same keys and values whatever their order in objects; lists in order. */
function sameData(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameData(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && sameData(a[k], b[k]));
  }
  return a === b;
}

/** The shared form of several instances: fields every one sets, each at its most common value. */
function common(instances: Doc[]): Doc {
  const first = instances[0]!;
  const out: Doc = {};
  for (const k of Object.keys(first)) {
    if (!instances.every((x) => k in x)) continue;
    if (MERGE_KEYS[k] && instances.every((x) => Array.isArray(x[k]))) {
      setOwn(out, k, commonKeyed(instances.map((x) => x[k] as unknown[]), MERGE_KEYS[k]!));
      continue;
    }
    setOwn(out, k, mostCommon(instances.map((x) => x[k])));
  }
  return out;
}

/** Items (by key) every list has, in the first list's order, each at its most common value. */
function commonKeyed(lists: unknown[][], key: string): unknown[] {
  const out: unknown[] = [];
  for (const item of lists[0]!) {
    if (!isObject(item)) return mostCommon(lists) as unknown[];
    const all = lists.map((l) => l.find((x) => isObject(x) && x[key] === item[key]));
    if (all.every(isObject)) out.push(mostCommon(all));
  }
  return out;
}

function mostCommon<T>(values: T[]): T {
  let best = 0;
  let bestCount = 0;
  values.forEach((v, i) => {
    const n = values.filter((x) => isDeepStrictEqual(x, v)).length;
    if (n > bestCount) [best, bestCount] = [i, n];
  });
  return values[best] as T;
}

/** Environment variables every member has and can take from the template with an override. */
function commonVariables(members: Doc[]): Doc[] {
  const lists = members.map((e) => (e.variables as Doc[] | undefined) ?? []);
  const out: Doc[] = [];
  for (const v of lists[0] ?? []) {
    const all = lists.map((l) => l.find((x) => x.key === v.key));
    if (!all.every(isObject)) continue;
    const t = common(all as Doc[]);
    if ((all as Doc[]).every((x) => overrideFor(t, x) !== undefined)) out.push(t);
  }
  return out;
}

/**
 * Deployment stages for the template: the first member's stages when every member's are those,
 * less the services it leaves out; otherwise none (each environment keeps its own).
 */
function commonStages(members: Doc[], excluded: string[][]): Doc[] | undefined {
  const stagesOf = (e: Doc) => (e.deployment_stages as Doc[] | undefined) ?? [];
  for (const candidate of members.map(stagesOf)) {
    const fits = members.every((e, i) => {
      const out = new Set(excluded[i]!.map(lower));
      const expanded = candidate.map((st) => (Array.isArray(st.services) ? { ...st, services: st.services.filter((n) => !out.has(lower(n))) } : st));
      return sameData(expanded, stagesOf(e));
    });
    if (fits) return candidate;
  }
  return undefined;
}
