/**
 * Organization infrastructure: clusters (list, status, upgrade), container registries, instance
 * types per region, and Terraform variables parsed from the fixture repositories.
 *
 * A cluster upgrade moves the cluster to `next_k8s_available_version` through
 * DEPLOYMENT_QUEUED -> DEPLOYING -> DEPLOYED, over --deploy-duration; a second upgrade while one
 * runs is a 409, and one without a next version a 400. After an upgrade next_k8s_available_version
 * is null (no newer version released yet).
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { ApiError, badRequest, conflict, invalidField, notFound } from '../errors.js';
import { PROVIDER_CATALOG, needs } from '../auth.js';
import { listOf, schema } from '../schemas.js';
import { checkOrganization, mustGet, nextTimestamp } from '../store.js';
import { AWS_MANAGED_DB_INSTANCE_TYPES, INSTANCE_TYPES, awsManagedDbInstanceTypes } from '../data/instance-types.js';
import { parseRepository } from '../terraform-vars.js';
import { doc, errorResponses, listQuery, uuidParams } from './common.js';

/** Kubernetes versions the emulated clusters can be upgraded through, oldest first. */
export const K8S_VERSIONS = ['1.29', '1.30', '1.31', '1.32'];

export function nextK8sVersion(version: string): string | null {
  const i = K8S_VERSIONS.indexOf(version);
  return i >= 0 && i < K8S_VERSIONS.length - 1 ? K8S_VERSIONS[i + 1] : null;
}

const BUSY = new Set(['DEPLOYMENT_QUEUED', 'DEPLOYING', 'QUEUED', 'BUILDING', 'DELETING', 'STOPPING']);

export function clusterRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const s = ctx.state;
  const status = schema('ClusterStatus');

  app.get<{ Params: { organizationId: string } }>(
    '/organization/:organizationId/cluster',
    { schema: { ...doc('Clusters', 'List the clusters of the organization'), params: uuidParams('organizationId'), querystring: listQuery(), response: { 200: listOf('Cluster'), ...errorResponses() } } },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      return { results: Object.values(s.clusters) };
    },
  );

  app.get<{ Params: { organizationId: string } }>(
    '/organization/:organizationId/cluster/status',
    { schema: { ...doc('Clusters', 'Status of every cluster'), params: uuidParams('organizationId'), querystring: listQuery(), response: { 200: listOf('ClusterStatus'), ...errorResponses() } } },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      return { results: Object.values(s.clusterStatuses) };
    },
  );

  app.get<{ Params: { organizationId: string; clusterId: string } }>(
    '/organization/:organizationId/cluster/:clusterId/status',
    { schema: { ...doc('Clusters', 'Status of one cluster'), params: uuidParams('organizationId', 'clusterId'), response: { 200: status, ...errorResponses() } } },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      const st = s.clusterStatuses[req.params.clusterId];
      if (!st || !s.clusters[req.params.clusterId]) throw notFound('cluster', req.params.clusterId);
      return st;
    },
  );

  app.post<{ Params: { clusterId: string } }>(
    '/cluster/:clusterId/upgrade',
    {
      config: needs('DEPLOY'),
      schema: { ...doc('Clusters', 'Upgrade the cluster to next_k8s_available_version (201, asynchronous)'), params: uuidParams('clusterId'), response: { 201: status, ...errorResponses(409) } },
    },
    async (req, reply) => {
      const id = req.params.clusterId;
      const cluster = s.clusters[id];
      if (!cluster) throw notFound('cluster', id);
      const st = s.clusterStatuses[id];
      if (st && BUSY.has(st.status)) throw conflict(`cluster '${cluster.name}' is busy (${st.status}); wait for it to finish`);
      // The status says what is available; only a status without the field falls back to the list.
      const target = st && st.next_k8s_available_version !== undefined ? st.next_k8s_available_version : nextK8sVersion(cluster.version);
      if (!target) throw badRequest(`cluster '${cluster.name}' has no newer Kubernetes version available (it runs ${cluster.version}; next_k8s_available_version is null)`);
      const executionId = `${id}-${ctx.newId().slice(0, 8)}`;
      s.clusterStatuses[id] = { ...(st ?? { cluster_id: id }), status: 'DEPLOYMENT_QUEUED', is_deployed: true, last_execution_id: executionId, next_k8s_available_version: target, reason: 'UNSPECIFIED' };
      const step = Math.max(1, Math.floor(ctx.options.deployDurationMs / 2));
      ctx.later(step, () => {
        if (!s.clusterStatuses[id]) return;
        s.clusterStatuses[id] = { ...s.clusterStatuses[id], status: 'DEPLOYING' };
        ctx.commit();
        ctx.later(step, () => {
          const c = s.clusters[id];
          if (!c) return;
          s.clusters[id] = { ...c, version: target, status: 'DEPLOYED', updated_at: nextTimestamp(ctx, c.updated_at) };
          // No newer version is released the moment an upgrade ends: a plan that asked for the upgrade
          // must converge (a --seed can set next_k8s_available_version to offer one).
          s.clusterStatuses[id] = { ...s.clusterStatuses[id], status: 'DEPLOYED', next_k8s_available_version: null, last_deployment_date: ctx.nowIso() };
          ctx.commit();
        });
      });
      reply.code(201);
      return s.clusterStatuses[id];
    },
  );

  app.get<{ Params: { organizationId: string } }>(
    '/organization/:organizationId/containerRegistry',
    { schema: { ...doc('Container registries', 'List container registries'), params: uuidParams('organizationId'), querystring: listQuery(), response: { 200: listOf('ContainerRegistry'), ...errorResponses() } } },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      return { results: Object.values(s.containerRegistries) };
    },
  );

  app.get<{ Params: { organizationId: string; containerRegistryId: string } }>(
    '/organization/:organizationId/containerRegistry/:containerRegistryId',
    { schema: { ...doc('Container registries', 'Get a container registry'), params: uuidParams('organizationId', 'containerRegistryId'), response: { 200: schema('ContainerRegistry'), ...errorResponses() } } },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      return mustGet(s.containerRegistries, req.params.containerRegistryId, 'container registry');
    },
  );

  const instanceRoute = (path: string, provider: 'GCP' | 'AWS' | 'SCW', param: 'region' | 'zone', label: string) => {
    app.get<{ Params: Record<string, string> }>(
      path,
      {
        config: PROVIDER_CATALOG,
        schema: {
          ...doc('Cloud provider', `Instance types of ${label} in a ${param}`),
          params: { type: 'object', required: [param], properties: { [param]: { type: 'string', minLength: 1, maxLength: 64 } } },
          response: { 200: listOf('InstanceType'), ...errorResponses() },
        },
      },
      async (req) => {
        const table = INSTANCE_TYPES[provider];
        const rows = Object.prototype.hasOwnProperty.call(table, req.params[param]) ? table[req.params[param]] : undefined;
        if (!rows) throw new ApiError(400, `path parameter '${param}': unknown ${label} ${param} '${req.params[param]}'; known: ${Object.keys(table).join(', ')}`);
        return { results: rows };
      },
    );
  };
  instanceRoute('/gcp/instanceType/:region', 'GCP', 'region', 'GCP (GKE)');
  instanceRoute('/aws/eks/instanceType/:region', 'AWS', 'region', 'AWS (EKS)');
  instanceRoute('/scaleway/instanceType/:zone', 'SCW', 'zone', 'Scaleway (Kapsule)');

  app.get(
    '/aws/managedDatabase/type',
    { config: PROVIDER_CATALOG, schema: { ...doc('Cloud provider', 'Managed database types available on AWS'), response: { 200: listOf('ManagedDatabaseType'), ...errorResponses() } } },
    async () => ({ results: Object.keys(AWS_MANAGED_DB_INSTANCE_TYPES).map((name) => ({ name })) }),
  );

  app.get<{ Params: { region: string; databaseType: string } }>(
    '/aws/managedDatabase/instanceType/:region/:databaseType',
    {
      config: PROVIDER_CATALOG,
      schema: {
        ...doc('Cloud provider', 'Instance types of AWS managed databases of a type in a region'),
        params: {
          type: 'object',
          required: ['region', 'databaseType'],
          properties: { region: { type: 'string', minLength: 1, maxLength: 64 }, databaseType: schema('DatabaseType') },
        },
        response: { 200: listOf('ManagedDatabaseInstanceType'), ...errorResponses() },
      },
    },
    async (req) => {
      const names = awsManagedDbInstanceTypes(req.params.region, req.params.databaseType);
      if (!names) throw new ApiError(400, `path parameter 'region': unknown AWS region '${req.params.region}'; known: ${Object.keys(INSTANCE_TYPES.AWS).join(', ')}`);
      return { results: names.map((name) => ({ name })) };
    },
  );

  app.post<{ Params: { organizationId: string }; Body: { git_repository: { url: string; root_path?: string | null } } }>(
    '/organization/:organizationId/parseTerraformVariablesFromGitRepo',
    {
      config: needs('READ'),
      schema: {
        ...doc('Terraform', 'Variables declared by a Terraform repository (the emulator reads its fixture repositories)'),
        params: uuidParams('organizationId'),
        body: schema('ParseTerraformVariablesRequest'),
        response: { 200: listOf('TerraformVariableDefinition'), ...errorResponses() },
      },
    },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      const r = parseRepository(req.body.git_repository.url, req.body.git_repository.root_path);
      if (!r.ok) throw invalidField(r.field, r.problem);
      return { results: r.results };
    },
  );
}
