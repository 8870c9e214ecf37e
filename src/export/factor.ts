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
 * The template is one environment's, never a blend: the base environment (`--base ENV`, else the
 * environment that shares the most services with the others, the first on a tie) gives the
 * template its services (those another environment has too, same name and kind), its plain
 * variables (those every environment of the template has) and its deployment stages (when every
 * environment's stages are the template's, less the services it leaves out, then its own). A
 * secret is never in the template: a template holding production's `${env:SHOP_PRODUCTION_...}`
 * would hand production's secret to any environment whose override was dropped, so every
 * environment writes its own secrets (its own variables, or its service overrides). Pure: plain
 * data in, plain data out.
 */
import { isDeepStrictEqual } from 'node:util';
import { MERGE_KEYS, mergeObjects } from '../manifest/templates.js';
import type { Doc, ExportedManifest } from './to-manifest.js';

const isObject = (v: unknown): v is Doc => v !== null && typeof v === 'object' && !Array.isArray(v);
const lower = (s: unknown) => String(s).toLowerCase();
/** An own property even for a key like `__proto__` (a helm chart's values may hold one). */
const setOwn = (o: Doc, k: string, v: unknown) => Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
const serviceId = (s: Doc) => `${String(s.type)}:${lower(s.name)}`;

export interface FactorOptions {
  /** The environment the template is built from (by name, case-insensitive), where a project has it. */
  base?: string;
}

export function factorManifest(m: ExportedManifest, options: FactorOptions = {}): ExportedManifest {
  if (!m.projects) return m;
  return { ...m, projects: m.projects.map((p) => factorProject(p, options)) };
}

/** Environment names of the manifest's projects: what `--base` may name. */
export function environmentNames(m: ExportedManifest): string[] {
  return (m.projects ?? []).flatMap((p) => ((p.environments as Doc[] | undefined) ?? []).map((e) => String(e.name)));
}

/** A value written from the environment (a secret's placeholder): never shared through a template. */
const holdsEnvReference = (v: unknown): boolean => JSON.stringify(v ?? null).includes('${env:');

/**
 * A variable that is a secret, or reads the environment: each environment writes its own. An alias
 * holds no value (a secret one points at a secret of its own environment: `{service, builtin}`
 * names the same thing in every environment), so it may be shared.
 */
const isSecretVariable = (v: Doc) => (v.secret === true && v.alias === undefined) || holdsEnvReference(v.value);

/** The template's copy of a service: its secrets left to each environment. */
function withoutSecrets(service: Doc): Doc {
  const out: Doc = {};
  for (const [k, v] of Object.entries(service)) {
    if (k === 'variables' && Array.isArray(v)) setOwn(out, k, v.filter((x) => !(isObject(x) && isSecretVariable(x))));
    else if (!holdsEnvReference(v)) setOwn(out, k, v);
  }
  return out;
}

/** One project with its shared services in a template; unchanged when no service is shared. */
export function factorProject(project: Doc, options: FactorOptions = {}): Doc {
  const envs = (project.environments as Doc[] | undefined) ?? [];
  const servicesOf = (e: Doc) => (e.services as Doc[] | undefined) ?? [];
  const count = new Map<string, number>();
  for (const e of envs) for (const id of new Set(servicesOf(e).map(serviceId))) count.set(id, (count.get(id) ?? 0) + 1);
  const sharedOf = (e: Doc) => servicesOf(e).filter((s) => (count.get(serviceId(s)) ?? 0) >= 2);
  const asked = options.base === undefined ? undefined : envs.find((e) => lower(e.name) === lower(options.base));
  // The base: as asked, else the environment sharing the most services (the first on a tie).
  const base = asked ?? envs.reduce<Doc | undefined>((best, e) => (sharedOf(e).length > (best ? sharedOf(best).length : 0) ? e : best), undefined);
  if (!base || sharedOf(base).length === 0) return project;
  const templateName = String(project.name);
  const templateServices = sharedOf(base).map(withoutSecrets);
  const templateIds = new Set(templateServices.map(serviceId));
  // The base, and every environment that has one of its shared services.
  const members = envs.filter((e) => e === base || servicesOf(e).some((s) => templateIds.has(serviceId(s))));
  const templateVariables = commonVariables(base, members);

  const out: Doc[] = [];
  const plans = members.map((e) => planEnvironment(e, templateServices, templateVariables));
  const stages = templateStages(base, members, plans);
  for (const e of envs) {
    const i = members.indexOf(e);
    out.push(i < 0 ? e : writeEnvironment(e, templateName, plans[i]!, stages === undefined ? undefined : stages.own[i]!));
  }
  const template: Doc = { name: templateName };
  if (templateVariables.length > 0) template.variables = templateVariables;
  if (stages && stages.template.length > 0) template.deployment_stages = stages.template;
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
  /** Names of the template's services. */
  templateNames: string[];
  /** Template services this environment lacks, or has in a form an override cannot express. */
  excluded: string[];
  serviceOverrides: Doc;
  ownServices: Doc[];
  variableOverrides: Doc[];
  ownVariables: Doc[];
}

function planEnvironment(e: Doc, templateServices: Doc[], templateVariables: Doc[]): EnvironmentPlan {
  const services = (e.services as Doc[] | undefined) ?? [];
  const plan: EnvironmentPlan = { templateNames: templateServices.map((t) => String(t.name)), excluded: [], serviceOverrides: {}, ownServices: [], variableOverrides: [], ownVariables: [] };
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

/** `ownStages`: the stages the environment adds to the template's (undefined: the template has none, it keeps its own). */
function writeEnvironment(e: Doc, template: string, plan: EnvironmentPlan, ownStages: Doc[] | undefined): Doc {
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
    if (k in out || k === 'services' || k === 'variables' || (k === 'deployment_stages' && ownStages !== undefined)) continue;
    out[k] = v;
  }
  if (ownStages !== undefined && ownStages.length > 0) out.deployment_stages = ownStages;
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
  return sameData(variablesByKey(merged), variablesByKey(instance)) ? patch : undefined;
}

/**
 * The data with every `variables` list in key order: variables are matched by key, their order in
 * the manifest means nothing (an override adds a service's secrets after the template's variables).
 */
function variablesByKey(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(variablesByKey);
  if (!isObject(v)) return v;
  const out: Doc = {};
  for (const [k, x] of Object.entries(v)) {
    const sorted = k === 'variables' && Array.isArray(x) && x.every(isObject) ? [...x].sort((a, b) => String(a.key).localeCompare(String(b.key))) : x;
    setOwn(out, k, variablesByKey(sorted));
  }
  return out;
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

/**
 * The base environment's plain variables that every member has and can take from the template
 * with an override (secrets stay with each environment).
 */
function commonVariables(base: Doc, members: Doc[]): Doc[] {
  const lists = members.map((e) => (e.variables as Doc[] | undefined) ?? []);
  const out: Doc[] = [];
  for (const t of (base.variables as Doc[] | undefined) ?? []) {
    if (isSecretVariable(t)) continue;
    const all = lists.map((l) => l.find((x) => x.key === t.key));
    if (all.every(isObject) && (all as Doc[]).every((x) => !isSecretVariable(x) && overrideFor(t, x) !== undefined)) out.push(t);
  }
  return out;
}

/**
 * Deployment stages for the template: the base's stages up to the last that holds a template
 * service (each with its template services only), when every member's stages are exactly those (less the services it leaves out) followed by stages
 * of its own services (the loader deploys an environment's own stages after the template's).
 * Otherwise undefined: each environment keeps its own stages and the template has none.
 */
function templateStages(base: Doc, members: Doc[], plans: EnvironmentPlan[]): { template: Doc[]; own: Doc[][] } | undefined {
  const stagesOf = (e: Doc) => (e.deployment_stages as Doc[] | undefined) ?? [];
  const names = (st: Doc) => (Array.isArray(st.services) ? (st.services as unknown[]).map(lower) : []);
  const inTemplate = new Set(plans[members.indexOf(base)]!.templateNames.map(lower));
  // The base's stages up to the last that holds a template service (an empty DEFAULT stage before them included).
  const baseStages = stagesOf(base);
  let last = -1;
  baseStages.forEach((st, i) => {
    if (names(st).some((n) => inTemplate.has(n))) last = i;
  });
  if (last < 0) return undefined;
  const template = baseStages.slice(0, last + 1);
  const own: Doc[][] = [];
  for (const [i, e] of members.entries()) {
    const out = new Set(plans[i]!.excluded.map(lower));
    const expanded = template.map((st) => (Array.isArray(st.services) ? { ...st, services: (st.services as unknown[]).filter((n) => inTemplate.has(lower(n)) && !out.has(lower(n))) } : st));
    const mine = stagesOf(e);
    const rest = mine.slice(expanded.length);
    // Its own stages may hold only its own services (a template service is in the template's stages).
    if (!sameData(mine.slice(0, expanded.length), expanded) || rest.some((st) => names(st).some((n) => inTemplate.has(n) && !out.has(n)))) return undefined;
    own.push(rest);
  }
  const templateOnly = template.map((st) => (Array.isArray(st.services) ? { ...st, services: (st.services as unknown[]).filter((n) => inTemplate.has(lower(n))) } : st));
  return { template: templateOnly, own };
}
