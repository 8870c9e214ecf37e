/**
 * Services of every kind (api-notes 4): list per kind, create, get, PUT, DELETE, and
 * `GET /environment/{id}/services` (every service of the environment, full records, one call).
 *
 * PUT semantics follow the real service: container, job, helm and terraform PUT take the create body
 * and replace the record (omitted fields take their defaults); application PUT is the same but its
 * `name` and `git_repository` may be omitted (kept); database PUT is partial and refuses a change of
 * `type` or `mode`. Names are unique in the environment across all kinds (case-insensitive).
 * cpu/memory are bounded by the cluster's maximum_cpu/maximum_memory.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { listOf, schema } from '../schemas.js';
import { assertUniqueName, mustGet, newRecord, updatedRecord } from '../store.js';
import { createServiceStatus } from '../service-status.js';
import { firstStage, placeService } from '../stages.js';
import { servicesIndex } from '../variables/services-by-environment.js';
import { KINDS, findService, presentService, stashTerraformSecrets } from '../services/kinds.js';
import type { Body } from '../services/fields.js';
import { changesDeployment } from '../services/redeploy.js';
import { doc, errorResponses, listQuery, uuidParams } from './common.js';

/**
 * Per-environment reads go through the services-by-environment index of the variables part (kept
 * current by the `created`/`deleted` events), so they cost O(services of the environment).
 */
export function serviceRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const s = ctx.state;

  app.get<{ Params: { environmentId: string } }>(
    '/environment/:environmentId/services',
    { schema: { ...doc('Environments', 'Every service of the environment, full records of every kind'), params: uuidParams('environmentId'), querystring: listQuery(), response: { 200: listOf('AnyService'), ...errorResponses() } } },
    async (req) => {
      mustGet(s.environments, req.params.environmentId, 'environment');
      return { results: servicesIndex(s).of(req.params.environmentId).map((x) => presentService(ctx, x)) };
    },
  );

  for (const k of KINDS) {
    const idParam = `${k.kind}Id`;
    const record = schema(k.responseSchema);

    app.get<{ Params: { environmentId: string } }>(
      `/environment/:environmentId/${k.kind}`,
      { schema: { ...doc(k.tag, `List the ${k.kind} services of an environment`), params: uuidParams('environmentId'), querystring: listQuery(), response: { 200: listOf(k.responseSchema), ...errorResponses() } } },
      async (req) => {
        mustGet(s.environments, req.params.environmentId, 'environment');
        return {
          results: servicesIndex(s)
            .of(req.params.environmentId)
            .filter((x) => x.service_type === k.type)
            .map((x) => presentService(ctx, x)),
        };
      },
    );

    app.post<{ Params: { environmentId: string }; Body: Body }>(
      `/environment/:environmentId/${k.kind}`,
      { schema: { ...doc(k.tag, `Create a ${k.kind}`), params: uuidParams('environmentId'), body: schema(k.createSchema), response: { 201: record, ...errorResponses(409) } } },
      async (req, reply) => {
        const env = mustGet(s.environments, req.params.environmentId, 'environment');
        assertUniqueName(servicesIndex(s).of(env.id), req.body.name, 'service in this environment');
        const fields = k.build(ctx, env, req.body);
        const rec = newRecord(ctx, { ...fields, environment: { id: env.id }, service_type: k.type });
        if (k.kind === 'terraform') stashTerraformSecrets(ctx, rec.id, rec);
        s.services[rec.id] = rec;
        createServiceStatus(ctx, rec.id);
        placeService(ctx, firstStage(ctx, env.id).id, rec);
        reply.code(201);
        return presentService(ctx, rec);
      },
    );

    app.get<{ Params: Record<string, string> }>(
      `/${k.kind}/:${idParam}`,
      { schema: { ...doc(k.tag, `Get a ${k.kind}`), params: uuidParams(idParam), response: { 200: record, ...errorResponses() } } },
      async (req) => presentService(ctx, findService(ctx, k, req.params[idParam])),
    );

    app.put<{ Params: Record<string, string>; Body: Body }>(
      `/${k.kind}/:${idParam}`,
      {
        schema: {
          ...doc(k.tag, k.kind === 'database' ? 'Edit a database (partial; type and mode are immutable)' : `Edit a ${k.kind} (full replacement)`),
          params: uuidParams(idParam),
          body: schema(k.editSchema),
          response: { 200: record, ...errorResponses(409) },
        },
      },
      async (req) => {
        const old = findService(ctx, k, req.params[idParam]);
        const env = mustGet(s.environments, old.environment.id, 'environment');
        if (req.body.name !== undefined) {
          assertUniqueName(servicesIndex(s).of(env.id), req.body.name, 'service in this environment', old.id);
        }
        const fields = k.build(ctx, env, req.body, old);
        const rec = updatedRecord(ctx, old, fields);
        const secretsBefore = secretSlotsOf(ctx, rec.id);
        if (k.kind === 'terraform') stashTerraformSecrets(ctx, rec.id, rec);
        s.services[rec.id] = rec;
        const redeploy = changesDeployment(old, rec, secretsBefore, secretSlotsOf(ctx, rec.id));
        if (redeploy) ctx.hooks.markOutOfDate(ctx, rec.id);
        ctx.events.emit('serviceConfigChanged', { service_id: rec.id, redeploy });
        return presentService(ctx, rec);
      },
    );

    app.delete<{ Params: Record<string, string> }>(
      `/${k.kind}/:${idParam}`,
      {
        schema: {
          ...doc(k.tag, `Delete a ${k.kind} (asynchronous: the service goes through DELETE_QUEUED and DELETING)`),
          params: uuidParams(idParam),
          querystring: { type: 'object', properties: { skipReconcile: { type: 'boolean' } } },
          response: { 204: { type: 'null' }, ...errorResponses(409) },
        },
      },
      async (req, reply) => {
        const rec = findService(ctx, k, req.params[idParam]);
        ctx.hooks.deleteService(ctx, rec.id);
        reply.code(204);
      },
    );
  }
}

/** The write-only values kept for a service (terraform's secret tf_vars), by slot. */
function secretSlotsOf(ctx: EmulatorContext, serviceId: string): Record<string, string> {
  const prefix = `tfvar:${serviceId}:`;
  return Object.fromEntries(Object.entries(ctx.state.secretValues).filter(([slot]) => slot.startsWith(prefix)));
}
