/**
 * Deployment stages (api-notes 5): list, create (appended last), get, update, delete, move a
 * service into a stage, reorder with moveBefore/moveAfter, and the stage of a service.
 * Names are unique in the environment, case-insensitive (seed 2.8).
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { badRequest, notFound } from '../errors.js';
import { listOf, schema } from '../schemas.js';
import { assertUniqueName, mustGet, updatedRecord } from '../store.js';
import { createStage, placeService, renumber, stageOfService, stagesOf } from '../stages.js';
import { doc, errorResponses, listQuery, uuidParams } from './common.js';

type Body = Record<string, any>;

export function stageRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const s = ctx.state;
  const stage = schema('DeploymentStage');
  const list = listOf('DeploymentStage');
  const T = 'Deployment stages';

  app.get<{ Params: { environmentId: string } }>(
    '/environment/:environmentId/deploymentStage',
    { schema: { ...doc(T, 'List the stages of an environment in deployment order, with their services'), params: uuidParams('environmentId'), querystring: listQuery(), response: { 200: list, ...errorResponses() } } },
    async (req) => {
      mustGet(s.environments, req.params.environmentId, 'environment');
      return { results: stagesOf(ctx, req.params.environmentId) };
    },
  );

  app.post<{ Params: { environmentId: string }; Body: Body }>(
    '/environment/:environmentId/deploymentStage',
    { schema: { ...doc(T, 'Create a stage, placed last (200, as the real service)'), params: uuidParams('environmentId'), body: schema('DeploymentStageRequest'), response: { 200: stage, ...errorResponses(409) } } },
    async (req) => {
      mustGet(s.environments, req.params.environmentId, 'environment');
      assertUniqueName(stagesOf(ctx, req.params.environmentId), req.body.name, 'deployment stage in this environment');
      return createStage(ctx, req.params.environmentId, req.body.name, req.body.description ?? null);
    },
  );

  app.get<{ Params: { deploymentStageId: string } }>(
    '/deploymentStage/:deploymentStageId',
    { schema: { ...doc(T, 'Get a stage'), params: uuidParams('deploymentStageId'), response: { 200: stage, ...errorResponses() } } },
    async (req) => mustGet(s.deploymentStages, req.params.deploymentStageId, 'deployment stage'),
  );

  app.put<{ Params: { deploymentStageId: string }; Body: Body }>(
    '/deploymentStage/:deploymentStageId',
    { schema: { ...doc(T, 'Edit a stage (name, description)'), params: uuidParams('deploymentStageId'), body: schema('DeploymentStageRequest'), response: { 200: stage, ...errorResponses(409) } } },
    async (req) => {
      const old = mustGet(s.deploymentStages, req.params.deploymentStageId, 'deployment stage');
      assertUniqueName(stagesOf(ctx, old.environment.id), req.body.name, 'deployment stage in this environment', old.id);
      s.deploymentStages[old.id] = updatedRecord(ctx, old, { name: req.body.name, description: req.body.description ?? null });
      return s.deploymentStages[old.id];
    },
  );

  app.delete<{ Params: { deploymentStageId: string } }>(
    '/deploymentStage/:deploymentStageId',
    { schema: { ...doc(T, 'Delete a stage; its services move to the first remaining stage'), params: uuidParams('deploymentStageId'), response: { 204: { type: 'null' }, ...errorResponses() } } },
    async (req, reply) => {
      const old = mustGet(s.deploymentStages, req.params.deploymentStageId, 'deployment stage');
      const rest = stagesOf(ctx, old.environment.id).filter((x) => x.id !== old.id);
      if (rest.length === 0) throw badRequest(`deployment stage '${old.name}' is the only stage of its environment; an environment needs at least one`);
      const members = old.services as Array<{ service_id: string; is_skipped: boolean }>;
      delete s.deploymentStages[old.id];
      for (const m of members) {
        const svc = s.services[m.service_id];
        if (svc) placeService(ctx, rest[0].id, svc, m.is_skipped);
      }
      renumber(ctx, stagesOf(ctx, old.environment.id));
      reply.code(204);
    },
  );

  app.put<{ Params: { deploymentStageId: string; serviceId: string }; Body: Body | undefined }>(
    '/deploymentStage/:deploymentStageId/service/:serviceId',
    {
      schema: {
        ...doc(T, "Move a service into this stage; returns the environment's stages"),
        params: uuidParams('deploymentStageId', 'serviceId'),
        body: schema('DeploymentStageServiceRequest'),
        response: { 200: list, ...errorResponses() },
      },
    },
    async (req) => {
      const st = mustGet(s.deploymentStages, req.params.deploymentStageId, 'deployment stage');
      const svc = s.services[req.params.serviceId];
      if (!svc) throw notFound('service', req.params.serviceId);
      if (svc.environment.id !== st.environment.id) {
        throw badRequest(`service '${svc.name}' belongs to another environment than deployment stage '${st.name}'`);
      }
      placeService(ctx, st.id, svc, req.body?.is_skipped ?? false);
      return { results: stagesOf(ctx, st.environment.id) };
    },
  );

  for (const where of ['moveBefore', 'moveAfter'] as const) {
    app.put<{ Params: { deploymentStageId: string; stageId: string } }>(
      `/deploymentStage/:deploymentStageId/${where}/:stageId`,
      {
        schema: {
          ...doc(T, `Move the stage ${where === 'moveBefore' ? 'before' : 'after'} another one; returns the environment's stages`),
          params: uuidParams('deploymentStageId', 'stageId'),
          response: { 200: list, ...errorResponses() },
        },
      },
      async (req) => {
        const moving = mustGet(s.deploymentStages, req.params.deploymentStageId, 'deployment stage');
        const anchor = mustGet(s.deploymentStages, req.params.stageId, 'deployment stage');
        if (anchor.environment.id !== moving.environment.id) throw badRequest('both stages must belong to the same environment');
        if (anchor.id !== moving.id) {
          const order = stagesOf(ctx, moving.environment.id).filter((x) => x.id !== moving.id);
          const at = order.findIndex((x) => x.id === anchor.id) + (where === 'moveAfter' ? 1 : 0);
          order.splice(at, 0, moving);
          renumber(ctx, order);
        }
        return { results: stagesOf(ctx, moving.environment.id) };
      },
    );
  }

  app.get<{ Params: { serviceId: string } }>(
    '/service/:serviceId/deploymentStage',
    { schema: { ...doc(T, 'The stage a service is in'), params: uuidParams('serviceId'), response: { 200: stage, ...errorResponses() } } },
    async (req) => {
      if (!s.services[req.params.serviceId]) throw notFound('service', req.params.serviceId);
      const st = stageOfService(ctx, req.params.serviceId);
      if (!st) throw notFound('deployment stage of service', req.params.serviceId);
      return st;
    },
  );
}
