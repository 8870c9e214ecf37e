/**
 * A helm service's `source`, as the real API has it (qovery-openapi HelmRequest / HelmResponse):
 *
 *   request   {helm_repository: {repository: <helm repository id>, chart_name, chart_version}}
 *             | {git_repository: {url, branch, root_path, ...}}
 *   response  {repository: {chart_name, chart_version, repository: {id, name, url}}}
 *             | {git: {git_repository: {...}}}
 *
 * The record keeps the response shape with only the repository's id; presentation fills in its
 * current name and url (a renamed repository shows its new name, like a job's image registry).
 */
import type { EmulatorContext } from '../context.js';
import { invalidField } from '../errors.js';
import type { ApiRecord } from '../state.js';
import { type Body, type Fields, gitRepository } from './fields.js';

/** `bitnami (<id>), ...`: what a 400 offers instead of an unknown repository. */
function knownRepositories(ctx: EmulatorContext): string {
  const all = Object.values(ctx.state.helmRepositories ?? {});
  return all.length ? all.map((r) => `${r.name} (${r.id})`).join(', ') : 'none (create one with POST /organization/{organizationId}/helmRepository)';
}

/** The stored source of a create / PUT body; 400 naming the field when it is not usable. */
export function buildHelmSource(ctx: EmulatorContext, src: Body | undefined, old?: Body): Fields {
  const s = src ?? {};
  if ((s.git_repository != null) === (s.helm_repository != null)) {
    throw invalidField('source', 'give exactly one of source.git_repository or source.helm_repository');
  }
  if (s.git_repository != null) {
    return { git: { git_repository: gitRepository(s.git_repository, old?.git?.git_repository, 'source.git_repository') } };
  }
  const h = s.helm_repository;
  const id = h.repository;
  if (id === undefined || id === null) {
    throw invalidField('source.helm_repository.repository', `required: the id of a helm repository of the organization; known: ${knownRepositories(ctx)}`);
  }
  if (!Object.prototype.hasOwnProperty.call(ctx.state.helmRepositories, id)) {
    throw invalidField('source.helm_repository.repository', `no helm repository with id '${id}' in the organization; known: ${knownRepositories(ctx)}`);
  }
  return { repository: { chart_name: h.chart_name, chart_version: h.chart_version, repository: { id } } };
}

/** The id of the helm repository a stored source uses (undefined for a git source). */
export function helmRepositoryIdOf(source: Body | undefined): string | undefined {
  const id = source?.repository?.repository?.id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * The source as the API answers it. Also reads the request shape that records of a `--data` file
 * or `--seed` fixture written before this module kept (`helm_repository` with an id, a name or a
 * URL of a known repository; `git_repository`).
 */
export function presentHelmSource(ctx: EmulatorContext, source: Body | undefined): Fields | undefined {
  if (!source || typeof source !== 'object') return source;
  if (source.git_repository && !source.git) return { git: { git_repository: source.git_repository } };
  if (source.helm_repository && !source.repository) {
    const h = source.helm_repository;
    const repo = findRepository(ctx, h.repository);
    return { repository: { chart_name: h.chart_name, chart_version: h.chart_version, repository: repo ? view(repo) : { id: String(h.repository ?? ''), name: String(h.repository ?? ''), url: String(h.repository ?? '') } } };
  }
  const id = helmRepositoryIdOf(source);
  if (id !== undefined) {
    const repo = ctx.state.helmRepositories[id];
    return { repository: { ...source.repository, repository: repo ? view(repo) : source.repository.repository } };
  }
  return source;
}

const view = (r: ApiRecord) => ({ id: r.id, name: r.name, url: r.url });

function findRepository(ctx: EmulatorContext, ref: unknown): ApiRecord | undefined {
  if (typeof ref !== 'string') return undefined;
  const all = Object.values(ctx.state.helmRepositories ?? {});
  return ctx.state.helmRepositories?.[ref] ?? all.find((r) => r.name === ref) ?? all.find((r) => r.url === ref);
}
