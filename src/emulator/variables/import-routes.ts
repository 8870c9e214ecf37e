/**
 * The import routes (see import.ts for the semantics):
 *
 * - `POST /variable/import?service_id=<uuid>&service_type=<APPLICATION|CONTAINER|JOB|HELM|TERRAFORM>`;
 * - the legacy `POST /{application|container|job}/{id}/environmentVariable/import` (helm and
 *   terraform have no legacy routes, as everywhere else).
 *
 * Both answer 201 `VariableImport`. A write like the other variable routes: WRITE (or ADMIN) scope.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { notFound } from '../errors.js';
import { schema } from '../schemas.js';
import { doc, errorResponses, uuidParams } from '../routes/common.js';
import { ensureBuiltIns } from './builtins.js';
import { variableDeps } from './cascade.js';
import { applyImport, planImport, type ImportBody } from './import.js';
import { requireParent } from './rules.js';
import { type ServiceScope, type VariableParent, parentOfId } from './scopes.js';

type Q = Record<string, string>;

const SUMMARY = 'Import variables into a service, its environment or its project ({overwrite, vars})';

/** Plans then applies: nothing is written unless the whole import is valid. */
function runImport(ctx: EmulatorContext, service: VariableParent, body: ImportBody) {
  const deps = variableDeps(ctx);
  // The environment's built-ins take part in name clashes at ENVIRONMENT scope, as for POST /variable.
  if (service.environmentId) ensureBuiltIns(deps, service.environmentId);
  return applyImport(ctx, deps, planImport(deps, service, body));
}

export function importVariableRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  app.post(
    '/variable/import',
    {
      schema: {
        ...doc('Variables', SUMMARY),
        querystring: schema('VariableImportQuery'),
        body: schema('VariableImportRequest'),
        response: { 201: schema('VariableImport'), ...errorResponses() },
      },
    },
    async (req, reply) => {
      const q = req.query as Q;
      // Unknown id: 404; a database, another kind than service_type, an environment: 400 naming service_id.
      const service = requireParent(ctx.state, q.service_type as ServiceScope, q.service_id, 'service_id');
      const result = runImport(ctx, service, req.body as ImportBody);
      reply.code(201);
      return result;
    },
  );

  const legacy: Array<{ segment: string; scope: ServiceScope; param: string }> = [
    { segment: 'application', scope: 'APPLICATION', param: 'applicationId' },
    { segment: 'container', scope: 'CONTAINER', param: 'containerId' },
    { segment: 'job', scope: 'JOB', param: 'jobId' },
  ];
  for (const p of legacy) {
    app.post(
      `/${p.segment}/:${p.param}/environmentVariable/import`,
      {
        schema: {
          ...doc('Environment variables (legacy)', `${SUMMARY}, for a ${p.segment}`),
          params: uuidParams(p.param),
          body: schema('VariableImportRequest'),
          response: { 201: schema('VariableImport'), ...errorResponses() },
        },
      },
      async (req, reply) => {
        const id = String((req.params as Q)[p.param]);
        const service = parentOfId(ctx.state, id);
        // As the other legacy routes: an id of another kind is simply not a <segment> (404).
        if (!service || service.scope !== p.scope) throw notFound(p.segment, id);
        const result = runImport(ctx, service, req.body as ImportBody);
        reply.code(201);
        return result;
      },
    );
  }
}
