/**
 * Preview environments: a project's `previews:` declaration, the environment of one pull request
 * made from it, and which live environments are the previews' (their name matches the pattern).
 *
 * A preview is an ordinary environment once made: `withPreviewEnvironment` writes it into the
 * manifest (`name` with the number, `template`, `cluster`, `overrides` plus the `--set` assignments
 * of the run), before the templates are expanded, so every later stage (template expansion,
 * references, resolution, buildGraph, plan, apply) treats it as it treats any declared environment.
 * Without a preview run the declaration only reserves its names: plan, apply, drift and pruning
 * leave the matching live environments alone (src/plan/compute.ts).
 *
 * Pure: no I/O.
 */
import type { Diagnostic, SourceRange } from '../diag/diagnostic.js';
import { addressOf } from '../model/resource.js';
import { error } from './codes.js';
import { copyShallow, mergeObjects } from './template-merge.js';
import { knownList, nearest } from './suggest.js';
import { sourceOf, type Manifest, type PreviewSpec } from './types.js';
import { NUMBER_PLACEHOLDER, previewNameOf, previewNumberOf } from './preview-names.js';
import { parseDuration } from '../model/duration.js';

export { NUMBER_PLACEHOLDER, previewNameOf, previewNumberOf, previewPatternRegExp } from './preview-names.js';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const lower = (s: unknown) => String(s).toLowerCase();

/** Marks the environment `withPreviewEnvironment` added: the one environment allowed to match the pattern. */
const PREVIEW_ENVIRONMENT: unique symbol = Symbol('driftless.previewEnvironment');

export function isPreviewEnvironment(env: unknown): boolean {
  return isObject(env) && (env as { [PREVIEW_ENVIRONMENT]?: boolean })[PREVIEW_ENVIRONMENT] === true;
}

/** The `--set` assignments of the run, on the preview environment `withPreviewEnvironment` added. */
const PREVIEW_ASSIGNMENTS: unique symbol = Symbol('driftless.previewAssignments');

/**
 * The `--set` assignments of a service of the preview environment being made (none for any other
 * environment or service): a value from the command line has no place in a file, so a problem
 * with it says where it came from instead (templates.ts).
 */
export function previewAssignmentsOf(env: unknown, service: string): readonly PreviewAssignment[] {
  const all = isObject(env) ? (env as { [PREVIEW_ASSIGNMENTS]?: Map<string, PreviewAssignment[]> })[PREVIEW_ASSIGNMENTS] : undefined;
  return all?.get(lower(service)) ?? [];
}

/**
 * The checks of a declaration, with the project's templates and environments as written (before
 * expansion): the template exists, the name has `{number}` and makes valid environment names, no
 * declared environment matches it, the ttl is a duration. Override problems are found by expanding
 * a probe preview (templates.ts).
 */
export function checkPreviewDeclaration(project: Obj, templateNames: readonly string[]): Diagnostic[] {
  const p = project.previews;
  if (!isObject(p)) return [];
  const out: Diagnostic[] = [];
  const projectName = String(project.name);
  const address = addressOf('project', projectName);
  const name = String(p.name ?? '');
  const range = (field: string): SourceRange | undefined => sourceOf(p, field);
  if (!name.includes(NUMBER_PLACEHOLDER)) {
    out.push(
      error('schema.invalid', `\`previews.name\` of project \`${projectName}\` must contain \`{number}\`, got \`${name}\``, {
        detail: 'It is replaced by the pull request number: write e.g. `name: "pr-{number}"`.',
        range: range('name'),
        address,
      }),
    );
    return out;
  }
  if (/[/\\]|^\s|\s$|\$\{|\{\{/.test(name.split(NUMBER_PLACEHOLDER).join('1'))) {
    out.push(
      error('schema.invalid', `\`previews.name\` of project \`${projectName}\` makes environment names that are not valid names: \`${previewNameOf(name, 1)}\``, {
        detail: 'An environment name has no path separator (/ or \\), no leading or trailing space and no template syntax (${ or {{).',
        range: range('name'),
        address,
      }),
    );
  }
  const template = String(p.template ?? '');
  if (!templateNames.some((t) => lower(t) === lower(template))) {
    const hint = nearest(template, [...templateNames]);
    out.push(
      error('ref.unresolved', `\`previews\` of project \`${projectName}\` uses template \`${template}\`, which the project does not declare`, {
        detail: `${hint ? `Did you mean \`${hint}\`? ` : ''}Templates of this project: ${knownList([...templateNames], { none: "none (declare them under the project's `templates:`)" })}.`,
        range: range('template'),
        address,
      }),
    );
  }
  if (typeof p.ttl === 'string' && parseDuration(p.ttl, { unit: 'required' }) === undefined) {
    out.push(
      error('schema.bad-format', `\`previews.ttl\` of project \`${projectName}\` is not a duration: \`${p.ttl}\``, {
        detail: 'Write a number and a unit, d (days), h, m or s, e.g. `72h`, `7d` or `1d12h`.',
        range: range('ttl'),
        address,
      }),
    );
  }
  for (const e of Array.isArray(project.environments) ? (project.environments as Obj[]) : []) {
    if (typeof e.name !== 'string' || isPreviewEnvironment(e) || previewNumberOf(name, e.name) === undefined) continue;
    out.push(
      error('manifest.conflict', `environment \`${e.name}\` of project \`${projectName}\` matches the preview name \`${name}\``, {
        detail: 'Environments named like previews belong to `driftless preview`: rename the environment, or change `previews.name`.',
        range: sourceOf(e, 'name'),
        related: range('name') ? [{ message: 'preview name declared', range: range('name')! }] : [],
        address: addressOf('environment', e.name, address),
      }),
    );
  }
  return out;
}

/**
 * The environment a probe of the declaration expands (templates.ts validates its overrides against
 * the template): named by the pattern itself, so that a problem names the declaration.
 */
export function previewEnvironmentOf(previews: Obj, name: string, overrides?: Obj): Obj {
  const env = copyShallow(previews);
  for (const k of ['ttl', 'allow_data_loss']) delete env[k];
  env.name = name;
  if (overrides !== undefined) env.overrides = overrides;
  else if (env.overrides === undefined) delete env.overrides;
  return env;
}

/** One `--set SERVICE.FIELD=VALUE` of `preview up`: a field of a template service, for this run. */
export interface PreviewAssignment {
  /** As given, for messages. */
  text: string;
  /** `api.git_repository.branch` (before the `=`). */
  path: string;
  value: string;
}

/** Splits `SERVICE.FIELD=VALUE`; a message when it is not one. */
export function parseAssignment(text: string): PreviewAssignment | string {
  const eq = text.indexOf('=');
  if (eq <= 0) return `--set takes SERVICE.FIELD=VALUE (e.g. api.git_commit_id=4f2a9c1), got '${text}'`;
  const path = text.slice(0, eq).trim();
  if (!/^[^.]+\..*[^.]$/.test(path)) {
    return `--set takes SERVICE.FIELD=VALUE (e.g. api.git_commit_id=4f2a9c1), got '${text}': no field after the service name`;
  }
  return { text, path, value: text.slice(eq + 1) };
}

export interface PreviewRequest {
  project: string;
  number: number;
  set?: readonly PreviewAssignment[];
}

/**
 * The manifest with the preview environment of `request` added to its project (before template
 * expansion), or the problems: the project or its `previews:` is missing, a `--set` names a
 * service the template lacks. The value of a `--set` takes the type of the template's value at
 * that place (a number stays a number); otherwise it is text.
 */
export function withPreviewEnvironment(manifest: Manifest, request: PreviewRequest): { manifest?: Manifest; environment?: string; diagnostics: Diagnostic[] } {
  const projects = (manifest.projects ?? []) as unknown as Obj[];
  const index = projects.findIndex((p) => lower(p.name) === lower(request.project));
  if (index < 0) {
    const names = projects.map((p) => String(p.name));
    const hint = nearest(request.project, names);
    return { diagnostics: [error('ref.unresolved', `--project ${request.project}: the manifest declares no such project`, { detail: `${hint ? `Did you mean \`${hint}\`? ` : ''}Projects of the manifest: ${knownList(names, { none: 'none' })}.` })] };
  }
  const project = projects[index];
  const previews = project.previews;
  if (!isObject(previews)) {
    const withPreviews = projects.filter((p) => isObject(p.previews)).map((p) => String(p.name));
    return {
      diagnostics: [
        error('ref.unresolved', `project \`${String(project.name)}\` declares no \`previews:\``, {
          detail: `Declare \`previews: {template, name: "pr-{number}", cluster}\` under the project. Projects with previews: ${knownList(withPreviews, { none: 'none' })}.`,
          range: sourceOf(project),
        }),
      ],
    };
  }
  const template = ((project.templates as Obj[] | undefined) ?? []).find((t) => lower(t.name) === lower(previews.template));
  const services = (Array.isArray(template?.services) ? template.services : []) as Obj[];
  const diagnostics: Diagnostic[] = [];
  let overrides: Obj = isObject(previews.overrides) ? (previews.overrides as Obj) : {};
  const assigned = new Map<string, PreviewAssignment[]>();
  for (const a of request.set ?? []) {
    // The longest template service name the path starts with (a name may contain dots).
    const svc = services
      .filter((s) => lower(a.path).startsWith(`${lower(s.name)}.`))
      .sort((x, y) => String(y.name).length - String(x.name).length)[0];
    if (!svc) {
      const names = services.map((s) => String(s.name));
      const hint = nearest(a.path.split('.')[0], names);
      diagnostics.push(
        error('ref.unresolved', `--set ${a.text}: template \`${String(previews.template)}\` has no service \`${a.path.split('.')[0]}\``, {
          detail: `${hint ? `Did you mean \`${hint}\`? ` : ''}Services of the template: ${knownList(names, { none: 'none' })}.`,
        }),
      );
      continue;
    }
    const fields = a.path.slice(String(svc.name).length + 1).split('.');
    const current = valueAt(mergeObjects(svc, (isObject(overrides.services) ? (overrides.services as Obj)[String(svc.name)] : undefined) as Obj ?? {}), fields);
    const value = typeof current === 'number' && /^-?\d+(\.\d+)?$/.test(a.value) ? Number(a.value) : typeof current === 'boolean' && /^(true|false)$/.test(a.value) ? a.value === 'true' : a.value;
    let patch: unknown = value;
    for (const f of [...fields].reverse()) patch = { [f]: patch };
    overrides = mergeObjects(overrides, { services: { [String(svc.name)]: patch } });
    assigned.set(lower(svc.name), [...(assigned.get(lower(svc.name)) ?? []), a]);
  }
  if (diagnostics.length > 0) return { diagnostics };
  const environment = previewNameOf(String(previews.name), request.number);
  const env = previewEnvironmentOf(previews, environment, Object.keys(overrides).length > 0 ? overrides : undefined);
  Object.defineProperty(env, PREVIEW_ENVIRONMENT, { value: true, enumerable: false });
  if (assigned.size > 0) Object.defineProperty(env, PREVIEW_ASSIGNMENTS, { value: assigned, enumerable: false });
  const nextProject = copyShallow(project);
  nextProject.environments = [...((project.environments as Obj[] | undefined) ?? []), env];
  const nextProjects = [...projects];
  nextProjects[index] = nextProject;
  const out = copyShallow(manifest as unknown as Obj);
  out.projects = nextProjects;
  return { manifest: out as unknown as Manifest, environment, diagnostics };
}

/** A project's `previews:`, with the project's name as the manifest spells it. */
export interface PreviewDeclaration {
  project: string;
  previews: PreviewSpec;
}

/** The `previews:` declaration of the project named so (letter case ignored), after loading. */
export function previewDeclarationOf(manifest: Manifest, project: string): PreviewDeclaration | undefined {
  const p = (manifest.projects ?? []).find((x) => lower(x.name) === lower(project));
  return p?.previews ? { project: p.name, previews: p.previews } : undefined;
}

/** The address of the preview environment of `request` (the project as the manifest spells it). */
export function previewEnvironmentAddress(manifest: Manifest, request: PreviewRequest): string {
  const declared = previewDeclarationOf(manifest, request.project);
  const name = declared ? previewNameOf(declared.previews.name, request.number) : String(request.number);
  return addressOf('environment', name, addressOf('project', declared?.project ?? request.project));
}

function valueAt(obj: unknown, path: readonly string[]): unknown {
  let v = obj;
  for (const k of path) v = isObject(v) ? v[k] : undefined;
  return v;
}

