/**
 * Environment action routes (api-notes §3): `POST /environment/{id}/deploy|redeploy|stop`, the batch
 * `POST /environment/{id}/service/deploy|stop|delete|restart-service` (stage by stage), and the
 * reads `GET .../statuses`, `GET .../status`, `GET .../deploymentHistoryV2`.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { needs } from '../auth.js';
import { badRequest, invalidField, notFound } from '../errors.js';
import { doc, errorResponses, uuidParams } from '../routes/common.js';
import { schema } from '../schemas.js';
import type { ApiRecord } from '../state.js';
import { servicesOfEnvironment } from '../variables/builtins.js';
import { environmentIdOfService } from '../variables/scopes.js';
import { pageOf } from './history.js';
import { type Q, currentVersion, deployRequest, triggeredBy } from './requests.js';
import { type ServiceRequest, startOperation } from './start.js';
import { environmentActionStatus, environmentStatus, environmentStatuses } from './status-view.js';
import type { Action } from './timeline.js';
import { KINDS, batchListOf, idListOf, kindOfType } from '../services/kinds.js';

/** Each kind's list in the batch deploy body (services/kinds.ts): `helms: [{ id }]`, `databases: [id]`. */
const BATCH_FIELDS: Array<{ field: string; type: string; idField?: string }> = KINDS.map((k) => ({ field: batchListOf(k), type: k.type, ...(k.batchIdField ? { idField: k.batchIdField } : {}) }));

/** Each kind's list of ids in the batch delete and stop bodies: `helm_ids`. */
const ID_LIST_FIELDS: Array<{ field: string; type: string }> = KINDS.map((k) => ({ field: idListOf(k), type: k.type }));

/** The service named at `field` of a batch body: it must exist, be of that kind and in this environment. */
function batchService(ctx: EmulatorContext, environmentId: string, id: string, type: string, field: string, seen: Set<string>): ApiRecord {
  const svc = Object.hasOwn(ctx.state.services, id) ? ctx.state.services[id] : undefined;
  if (!svc || svc.service_type !== type) throw invalidField(field, `no ${type.toLowerCase()} with id '${id}'`);
  if (environmentIdOfService(svc) !== environmentId) throw invalidField(field, `${type.toLowerCase()} '${svc.name}' is not in environment '${environmentId}'`);
  if (seen.has(id)) throw invalidField(field, `service '${id}' is listed twice`);
  seen.add(id);
  return svc;
}

function requireEnvironment(ctx: EmulatorContext, id: string): ApiRecord {
  const env = Object.hasOwn(ctx.state.environments, id) ? ctx.state.environments[id] : undefined;
  if (!env) throw notFound('environment', id);
  return env;
}

/** Services of an environment that a whole-environment action covers: those not skipped in their stage. */
function unskippedServices(ctx: EmulatorContext, environmentId: string): ApiRecord[] {
  const skipped = new Set<string>();
  for (const st of Object.values(ctx.state.deploymentStages)) {
    if (st.environment?.id !== environmentId) continue;
    for (const m of (st.services ?? []) as ApiRecord[]) if (m.is_skipped) skipped.add(String(m.service_id));
  }
  return servicesOfEnvironment(ctx.state, environmentId).filter((s) => !skipped.has(s.id));
}

export function environmentActionRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const params = uuidParams('environmentId');
  const envIdOf = (req: { params: unknown }) => String((req.params as Q).environmentId);
  const envStatusSchema = schema('EnvironmentStatus');
  const statusSchema = schema('Status');

  app.post(
    '/environment/:environmentId/service/deploy',
    {
      config: needs('DEPLOY'),
      schema: {
        ...doc('Environment Actions', 'Deploy the selected services, stage by stage (DeployAllRequest)'),
        params,
        body: schema('DeployAllRequest'),
        response: { 202: envStatusSchema, ...errorResponses(402, 409) },
      },
    },
    async (req, reply) => {
      const envId = requireEnvironment(ctx, envIdOf(req)).id;
      const body = (req.body ?? {}) as Q;
      const seen = new Set<string>();
      const requests: ServiceRequest[] = [];
      for (const f of BATCH_FIELDS) {
        const items = (body[f.field] ?? []) as unknown[];
        items.forEach((item, i) => {
          const at = f.idField ? `${f.field}[${i}].${f.idField}` : `${f.field}[${i}]`;
          const id = f.idField ? String((item as Q)[f.idField]) : String(item);
          const svc = batchService(ctx, envId, id, f.type, at, seen);
          requests.push(deployRequest(svc, f.idField ? (item as Q) : {}, `${f.field}[${i}]`));
        });
      }
      if (requests.length === 0) throw badRequest('request body: select at least one service (applications, containers, databases, jobs, helms or terraforms)');
      startOperation(ctx, { action: 'DEPLOY', environmentId: envId, services: requests, staged: true, triggeredBy: triggeredBy(req, ctx) });
      reply.code(202);
      return environmentStatus(ctx, envId);
    },
  );

  const wholeEnvironment: Array<[string, Action, string]> = [
    ['deploy', 'DEPLOY', 'Deploy every service of the environment (stage by stage; skipped services excluded)'],
    ['redeploy', 'DEPLOY', 'Redeploy every service of the environment with its current version'],
    ['stop', 'STOP', 'Stop every service of the environment'],
  ];
  for (const [path, action, summary] of wholeEnvironment) {
    app.post(
      `/environment/:environmentId/${path}`,
      // deployEnvironment answers a Status, stop and redeploy an EnvironmentStatus (the real API).
      { config: needs('DEPLOY'), schema: { ...doc('Environment Actions', summary), params, response: { 202: path === 'deploy' ? statusSchema : envStatusSchema, ...errorResponses(402, 409) } } },
      async (req, reply) => {
        const envId = requireEnvironment(ctx, envIdOf(req)).id;
        const services = action === 'STOP' ? servicesOfEnvironment(ctx.state, envId) : unskippedServices(ctx, envId);
        if (services.length === 0) throw badRequest(`environment '${envId}' has no service to ${action.toLowerCase()}`);
        const requests = services.map((s) => (path === 'redeploy' ? deployRequest(s, currentVersion(s)) : { service: s }));
        startOperation(ctx, { action, environmentId: envId, services: requests, staged: true, triggeredBy: triggeredBy(req, ctx), redeploy: path === 'redeploy' });
        reply.code(202);
        return path === 'deploy' ? environmentActionStatus(ctx, envId, 'DEPLOY') : environmentStatus(ctx, envId);
      },
    );
  }

  const selected: Array<[string, Action, string, Array<{ field: string; type: string }>, string]> = [
    ['delete', 'DELETE', 'Delete the selected services (asynchronous: DELETE_QUEUED, DELETING, then gone)', ID_LIST_FIELDS, 'EnvironmentServiceIdsAllRequest'],
    ['stop', 'STOP', 'Stop the selected services', ID_LIST_FIELDS, 'EnvironmentServiceIdsAllRequest'],
    ['restart-service', 'RESTART', 'Restart the selected services', ID_LIST_FIELDS.filter((f) => kindOfType(f.type)?.restartable), 'RestartServicesRequest'],
  ];
  for (const [path, action, summary, fields, bodyName] of selected) {
    app.post(
      `/environment/:environmentId/service/${path}`,
      {
        config: action === 'DELETE' ? needs('WRITE') : needs('DEPLOY'),
        // rebootServices answers 202 Status; deleteSelectedServices and stopSelectedServices 200 without a body.
        schema: {
          ...doc('Environment Actions', summary),
          params,
          body: schema(bodyName),
          response: { ...(action === 'RESTART' ? { 202: statusSchema } : { 200: { type: 'null', description: 'accepted; the work continues asynchronously' } }), ...errorResponses(402, 409) },
        },
      },
      async (req, reply) => {
        const envId = requireEnvironment(ctx, envIdOf(req)).id;
        const body = (req.body ?? {}) as Q;
        const seen = new Set<string>();
        const services: ServiceRequest[] = [];
        for (const f of fields) {
          ((body[f.field] ?? []) as string[]).forEach((id, i) => services.push({ service: batchService(ctx, envId, String(id), f.type, `${f.field}[${i}]`, seen) }));
        }
        if (services.length === 0) throw badRequest(`request body: select at least one service (${fields.map((f) => f.field).join(', ')})`);
        startOperation(ctx, { action, environmentId: envId, services, staged: true, triggeredBy: triggeredBy(req, ctx) });
        if (action === 'RESTART') {
          reply.code(202);
          return environmentActionStatus(ctx, envId, 'RESTART');
        }
        // api-notes §3: 200 with no body; the services move on in the background.
        return reply.code(200).send();
      },
    );
  }

  app.get(
    '/environment/:environmentId/statuses',
    { schema: { ...doc('Environment Actions', 'Environment status and every service status, in one call'), params, response: { 200: schema('EnvironmentStatuses'), ...errorResponses() } } },
    async (req) => environmentStatuses(ctx, requireEnvironment(ctx, envIdOf(req)).id),
  );

  app.get(
    '/environment/:environmentId/status',
    { schema: { ...doc('Environment Actions', 'Environment status'), params, response: { 200: envStatusSchema, ...errorResponses() } } },
    async (req) => environmentStatus(ctx, requireEnvironment(ctx, envIdOf(req)).id),
  );

  app.get(
    '/environment/:environmentId/deploymentHistoryV2',
    {
      schema: {
        ...doc('Environment Actions', 'Deployment history of the environment (newest first; pageSize, startId)'),
        params,
        querystring: schema('HistoryQuery'),
        response: { 200: schema('DeploymentHistoryEnvironmentPage'), ...errorResponses() },
      },
    },
    async (req) => {
      const envId = requireEnvironment(ctx, envIdOf(req)).id;
      const q = req.query as Q;
      return pageOf(ctx.state.environmentHistory[envId] ?? [], q.pageSize, q.startId);
    },
  );
}
