/**
 * Projects (api-notes 2) and environments (api-notes 3). Names are unique (case-insensitive) in
 * their parent; an environment's cluster is fixed at creation; deleting a project or an
 * environment deletes everything under it.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { conflict, invalidField, notFound } from '../errors.js';
import { removeServiceNow } from '../context.js';
import { servicesIndex } from '../variables/services-by-environment.js';
import { listOf, schema } from '../schemas.js';
import type { ApiRecord } from '../state.js';
import { assertUniqueName, checkOrganization, mustGet, newRecord, updatedRecord } from '../store.js';
import { createStage, DEFAULT_STAGE_NAME } from '../stages.js';
import { defaultIconUri } from '../services/kinds.js';
import { doc, errorResponses, listQuery, uuidParams } from './common.js';

type Body = Record<string, any>;

export function projectRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const s = ctx.state;
  const project = schema('Project');
  const present = (p: ApiRecord) => ({
    ...p,
    associated_environments_count: Object.values(s.environments).filter((e) => e.project.id === p.id).length,
  });

  app.get<{ Params: { organizationId: string } }>(
    '/organization/:organizationId/project',
    { schema: { ...doc('Projects', 'List projects'), params: uuidParams('organizationId'), querystring: listQuery(), response: { 200: listOf('Project'), ...errorResponses() } } },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      return { results: Object.values(s.projects).map(present) };
    },
  );

  app.post<{ Params: { organizationId: string }; Body: Body }>(
    '/organization/:organizationId/project',
    { schema: { ...doc('Projects', 'Create a project (200, as the real service)'), params: uuidParams('organizationId'), body: schema('ProjectRequest'), response: { 200: project, ...errorResponses(409) } } },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      assertUniqueName(Object.values(s.projects), req.body.name, 'project');
      const p = newRecord(ctx, { name: req.body.name, description: req.body.description ?? null, organization: { id: s.organization.id } });
      s.projects[p.id] = p;
      return present(p);
    },
  );

  app.get<{ Params: { projectId: string } }>(
    '/project/:projectId',
    { schema: { ...doc('Projects', 'Get a project'), params: uuidParams('projectId'), response: { 200: project, ...errorResponses() } } },
    async (req) => present(mustGet(s.projects, req.params.projectId, 'project')),
  );

  app.put<{ Params: { projectId: string }; Body: Body }>(
    '/project/:projectId',
    { schema: { ...doc('Projects', 'Edit a project (full replacement)'), params: uuidParams('projectId'), body: schema('ProjectRequest'), response: { 200: project, ...errorResponses(409) } } },
    async (req) => {
      const old = mustGet(s.projects, req.params.projectId, 'project');
      assertUniqueName(Object.values(s.projects), req.body.name, 'project', old.id);
      s.projects[old.id] = updatedRecord(ctx, old, { name: req.body.name, description: req.body.description ?? null });
      return present(s.projects[old.id]);
    },
  );

  app.delete<{ Params: { projectId: string } }>(
    '/project/:projectId',
    { schema: { ...doc('Projects', 'Delete a project and everything in it'), params: uuidParams('projectId'), response: { 204: { type: 'null' }, ...errorResponses() } } },
    async (req, reply) => {
      const p = mustGet(s.projects, req.params.projectId, 'project');
      const envs = Object.values(s.environments).filter((e) => e.project.id === p.id);
      const busy = envs.find((e) => Object.values(s.operations).some((op) => op.environment_id === e.id));
      if (busy) throw conflict(`environment '${busy.name}' of project '${p.name}' has an operation in progress; wait for it to finish, then delete`);
      for (const env of Object.values(s.environments).filter((e) => e.project.id === p.id)) deleteEnvironment(ctx, env.id);
      delete s.projects[p.id];
      ctx.events.emit('deleted', { kind: 'project', id: p.id });
      reply.code(204);
    },
  );

  // ---- environments ----
  const environment = schema('Environment');

  app.get<{ Params: { organizationId: string } }>(
    '/organization/:organizationId/environments',
    { schema: { ...doc('Environments', 'Every environment of the organization (light records, no cluster)'), params: uuidParams('organizationId'), querystring: listQuery(), response: { 200: listOf('EnvironmentLight'), ...errorResponses() } } },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      return { results: Object.values(s.environments) };
    },
  );

  app.get<{ Params: { organizationId: string }; Querystring: { project_id?: string; environment_id?: string; cluster_id?: string } }>(
    '/organization/:organizationId/services',
    {
      schema: {
        ...doc('Environments', 'Summaries of every service of the organization, optionally filtered'),
        params: uuidParams('organizationId'),
        querystring: {
          type: 'object',
          properties: {
            ...listQuery().properties as object,
            project_id: { type: 'string', format: 'uuid' },
            environment_id: { type: 'string', format: 'uuid' },
            cluster_id: { type: 'string', format: 'uuid' },
          },
        },
        response: { 200: listOf('ServiceLight'), ...errorResponses() },
      },
    },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      const q = req.query;
      const out = [];
      for (const svc of Object.values(s.services)) {
        const env = s.environments[svc.environment.id];
        if (!env) continue;
        if (q.environment_id && env.id !== q.environment_id) continue;
        if (q.project_id && env.project.id !== q.project_id) continue;
        if (q.cluster_id && env.cluster_id !== q.cluster_id) continue;
        const project = s.projects[env.project.id];
        out.push({
          // Real ServiceLightResponse: description and icon_uri are required strings.
          id: svc.id, name: svc.name, description: svc.description ?? '', icon_uri: svc.icon_uri ?? defaultIconUri(String(svc.service_type)), service_type: svc.service_type,
          project_id: env.project.id, project_name: project?.name, environment_id: env.id, environment_name: env.name, cluster_id: env.cluster_id,
          job_type: svc.job_type ?? null,
        });
      }
      return { results: out };
    },
  );

  app.get<{ Params: { projectId: string } }>(
    '/project/:projectId/environment',
    { schema: { ...doc('Environments', 'List environments of a project'), params: uuidParams('projectId'), querystring: listQuery(), response: { 200: listOf('Environment'), ...errorResponses() } } },
    async (req) => {
      mustGet(s.projects, req.params.projectId, 'project');
      return { results: Object.values(s.environments).filter((e) => e.project.id === req.params.projectId) };
    },
  );

  app.post<{ Params: { projectId: string }; Body: Body }>(
    '/project/:projectId/environment',
    { schema: { ...doc('Environments', 'Create an environment'), params: uuidParams('projectId'), body: schema('EnvironmentCreateRequest'), response: { 201: environment, ...errorResponses(409) } } },
    async (req, reply) => {
      const p = mustGet(s.projects, req.params.projectId, 'project');
      const b = req.body;
      if (b.cluster_id && b.cluster && b.cluster_id !== b.cluster) throw invalidField('cluster', 'cluster and cluster_id name different clusters; send one of them');
      const clusterId: string | undefined = b.cluster_id ?? b.cluster;
      const cluster = clusterId ? s.clusters[clusterId] : Object.values(s.clusters).find((c) => c.is_default) ?? Object.values(s.clusters)[0];
      if (!cluster) {
        throw invalidField(b.cluster_id ? 'cluster_id' : 'cluster', `no cluster with id '${clusterId}' in this organization (see GET /organization/{id}/cluster)`);
      }
      const siblings = Object.values(s.environments).filter((e) => e.project.id === p.id);
      assertUniqueName(siblings, b.name, 'environment in this project');
      const env = newRecord(ctx, {
        name: b.name,
        organization: { id: s.organization.id },
        project: { id: p.id },
        cloud_provider: { provider: cluster.cloud_provider, cluster: cluster.name },
        mode: b.mode ?? 'DEVELOPMENT',
        cluster_id: cluster.id,
        cluster_name: cluster.name,
      });
      s.environments[env.id] = env;
      createStage(ctx, env.id, DEFAULT_STAGE_NAME, 'Default deployment stage');
      reply.code(201);
      return env;
    },
  );

  app.get<{ Params: { environmentId: string } }>(
    '/environment/:environmentId',
    { schema: { ...doc('Environments', 'Get an environment'), params: uuidParams('environmentId'), response: { 200: environment, ...errorResponses() } } },
    async (req) => mustGet(s.environments, req.params.environmentId, 'environment'),
  );

  app.put<{ Params: { environmentId: string }; Body: Body }>(
    '/environment/:environmentId',
    { schema: { ...doc('Environments', 'Edit an environment (name, mode; the cluster is immutable)'), params: uuidParams('environmentId'), body: schema('EnvironmentEditRequest'), response: { 200: environment, ...errorResponses(409) } } },
    async (req) => {
      const old = mustGet(s.environments, req.params.environmentId, 'environment');
      const b = req.body;
      for (const f of ['cluster_id', 'cluster'] as const) {
        if (b[f] !== undefined && b[f] !== old.cluster_id) {
          throw invalidField(f, 'the cluster of an environment cannot be changed; clone the environment to move it');
        }
      }
      if (b.name !== undefined) {
        assertUniqueName(Object.values(s.environments).filter((e) => e.project.id === old.project.id), b.name, 'environment in this project', old.id);
      }
      const fields: Body = {};
      if (b.name !== undefined) fields.name = b.name;
      if (b.mode !== undefined) fields.mode = b.mode;
      s.environments[old.id] = updatedRecord(ctx, old, fields);
      return s.environments[old.id];
    },
  );

  app.delete<{ Params: { environmentId: string } }>(
    '/environment/:environmentId',
    { schema: { ...doc('Environments', 'Delete an environment and its services'), params: uuidParams('environmentId'), response: { 204: { type: 'null' }, ...errorResponses() } } },
    async (req, reply) => {
      deleteEnvironment(ctx, req.params.environmentId);
      reply.code(204);
    },
  );
}

/** Removes an environment, its services (through the ops hook), stages and history. */
export function deleteEnvironment(ctx: EmulatorContext, environmentId: string): void {
  const s = ctx.state;
  const env = s.environments[environmentId];
  if (!env) throw notFound('environment', environmentId);
  // As the real service: no deletion while an operation (deploy, stop, delete...) runs in it.
  if (Object.values(s.operations).some((op) => op.environment_id === environmentId)) {
    throw conflict(`environment '${env.name}' has an operation in progress; wait for it to finish, then delete`);
  }
  // Removal is immediate for an environment: its services cannot outlive it.
  for (const svc of servicesIndex(s).of(environmentId)) removeServiceNow(ctx, svc.id);
  for (const st of Object.values(s.deploymentStages).filter((x) => x.environment.id === environmentId)) delete s.deploymentStages[st.id];
  delete s.environmentHistory[environmentId];
  delete s.environments[environmentId];
  ctx.events.emit('deleted', { kind: 'environment', id: environmentId });
}
