/**
 * Organization helm repositories (`/organization/{id}/helmRepository`, qovery-openapi "Helm
 * Repositories"): what a helm service's `source.helm_repository.repository` refers to, by id.
 *
 * Names are unique (case-insensitive, 409). `url` must start with https:// for kind HTTPS and
 * oci:// for the OCI_* kinds. Credentials (config.password, secret_access_key,
 * scaleway_secret_key) are write-only: kept in `secretValues` under `helmrepo:<id>:<field>`, never
 * served; a PUT replaces the record but keeps a credential it omits. A repository used by a helm
 * service cannot be deleted (409), so a service never refers to a repository that is gone.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { conflict, invalidField } from '../errors.js';
import { listOf, schema } from '../schemas.js';
import type { ApiRecord } from '../state.js';
import { helmRepositoryIdOf } from '../services/helm-source.js';
import { assertUniqueName, checkOrganization, mustGet, newRecord, updatedRecord } from '../store.js';
import { doc, errorResponses, listQuery, uuidParams } from './common.js';

type Body = Record<string, any>;

const T = 'Helm repositories';
const WHAT = 'helm repository';
/** Write-only config fields: stored apart, never in a record. */
const SECRET_FIELDS = ['password', 'secret_access_key', 'scaleway_secret_key'];

export function helmRepositoryRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const s = ctx.state;
  const users = (id: string) => Object.values(s.services).filter((sv) => sv.service_type === 'HELM' && helmRepositoryIdOf(sv.source) === id);
  const present = (r: ApiRecord) => ({ ...r, associated_services_count: users(r.id).length });
  const slot = (id: string, field: string) => `helmrepo:${id}:${field}`;

  /** The record fields of a request body; its credentials go to secretValues (kept when omitted). */
  const fields = (id: string, b: Body): Record<string, unknown> => {
    checkUrl(b.kind, b.url);
    const config: Body = {};
    for (const [k, v] of Object.entries((b.config ?? {}) as Body)) {
      if (SECRET_FIELDS.includes(k)) s.secretValues[slot(id, k)] = String(v);
      else config[k] = v;
    }
    return { name: b.name, kind: b.kind, description: b.description ?? '', url: b.url, skip_tls_verification: b.skip_tls_verification, config };
  };

  const base = '/organization/:organizationId/helmRepository';
  const one = `${base}/:helmRepositoryId`;
  type OneParams = { organizationId: string; helmRepositoryId: string };

  app.get<{ Params: { organizationId: string } }>(
    base,
    { schema: { ...doc(T, 'List organization helm repositories'), params: uuidParams('organizationId'), querystring: listQuery(), response: { 200: listOf('HelmRepository'), ...errorResponses() } } },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      return { results: Object.values(s.helmRepositories).map(present) };
    },
  );

  app.post<{ Params: { organizationId: string }; Body: Body }>(
    base,
    { schema: { ...doc(T, 'Create a helm repository'), params: uuidParams('organizationId'), body: schema('HelmRepositoryRequest'), response: { 201: schema('HelmRepository'), ...errorResponses(409) } } },
    async (req, reply) => {
      checkOrganization(ctx, req.params.organizationId);
      assertUniqueName(Object.values(s.helmRepositories), req.body.name, WHAT);
      const id = ctx.newId();
      const r = { ...newRecord(ctx, fields(id, req.body)), id };
      s.helmRepositories[id] = r;
      reply.code(201);
      return present(r);
    },
  );

  app.get<{ Params: OneParams }>(
    one,
    { schema: { ...doc(T, 'Get a helm repository'), params: uuidParams('organizationId', 'helmRepositoryId'), response: { 200: schema('HelmRepository'), ...errorResponses() } } },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      return present(mustGet(s.helmRepositories, req.params.helmRepositoryId, WHAT));
    },
  );

  app.put<{ Params: OneParams; Body: Body }>(
    one,
    { schema: { ...doc(T, 'Edit a helm repository (full replacement; an omitted credential is kept)'), params: uuidParams('organizationId', 'helmRepositoryId'), body: schema('HelmRepositoryRequest'), response: { 200: schema('HelmRepository'), ...errorResponses(409) } } },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      const old = mustGet(s.helmRepositories, req.params.helmRepositoryId, WHAT);
      assertUniqueName(Object.values(s.helmRepositories), req.body.name, WHAT, old.id);
      s.helmRepositories[old.id] = updatedRecord(ctx, old, fields(old.id, req.body));
      // The charts of its services now come from elsewhere: they must be deployed again.
      for (const sv of users(old.id)) ctx.hooks.markOutOfDate(ctx, sv.id);
      return present(s.helmRepositories[old.id]);
    },
  );

  app.delete<{ Params: OneParams }>(
    one,
    { schema: { ...doc(T, 'Delete a helm repository (409 while a helm service uses it)'), params: uuidParams('organizationId', 'helmRepositoryId'), response: { 204: { type: 'null' }, ...errorResponses(409) } } },
    async (req, reply) => {
      checkOrganization(ctx, req.params.organizationId);
      const old = mustGet(s.helmRepositories, req.params.helmRepositoryId, WHAT);
      const used = users(old.id);
      if (used.length > 0) {
        throw conflict(`${WHAT} '${old.name}' is used by ${used.length} helm service(s) (${used.slice(0, 3).map((x) => x.name).join(', ')}); change their source first`);
      }
      delete s.helmRepositories[old.id];
      for (const f of SECRET_FIELDS) delete s.secretValues[slot(old.id, f)];
      reply.code(204);
    },
  );
}

/** qovery-openapi HelmRepositoryRequest.url: `https://` for HTTPS, `oci://` for the OCI kinds. */
function checkUrl(kind: string, url: string): void {
  const scheme = kind === 'HTTPS' ? 'https://' : 'oci://';
  if (!url.toLowerCase().startsWith(scheme)) throw invalidField('url', `a ${kind} helm repository's url must start with ${scheme} (got '${url}')`);
}
