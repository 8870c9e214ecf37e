/**
 * Routes of asynchronous operations (seed 2.9, 2.10, 4.2; api-notes §3, §4, §9):
 *
 * - per service kind: `POST /<kind>/{id}/deploy|redeploy|stop|restart-service`, `GET .../status`,
 *   `GET .../deploymentHistoryV2`, `GET .../log?tail=N`;
 * - per environment: `POST /environment/{id}/deploy|redeploy|stop`, the batch
 *   `POST /environment/{id}/service/deploy|stop|delete|restart-service`, `GET .../statuses`,
 *   `GET .../deploymentHistoryV2`.
 *
 * Actions answer at once (202 with the status record) and run in the background (engine.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { needs } from '../auth.js';
import { badRequest, invalidField, notFound } from '../errors.js';
import { doc, errorResponses, uuidParams } from '../routes/common.js';
import { listOf, schema } from '../schemas.js';
import type { ApiRecord } from '../state.js';
import { servicesOfEnvironment } from '../variables/builtins.js';
import { environmentIdOfService } from '../variables/scopes.js';
import { statusOf } from './effects.js';
import { pageOf } from './history.js';
import { tail } from './logs.js';
import { type ServiceRequest, startOperation } from './start.js';
import { environmentStatus, environmentStatuses } from './status-view.js';
import { type Action, terraformSubAction } from './timeline.js';

type Q = Record<string, any>;

export const SERVICE_KINDS = [
  { segment: 'application', type: 'APPLICATION', param: 'applicationId', tag: 'Applications' },
  { segment: 'container', type: 'CONTAINER', param: 'containerId', tag: 'Containers' },
  { segment: 'database', type: 'DATABASE', param: 'databaseId', tag: 'Databases' },
  { segment: 'job', type: 'JOB', param: 'jobId', tag: 'Jobs' },
  { segment: 'helm', type: 'HELM', param: 'helmId', tag: 'Helms' },
  { segment: 'terraform', type: 'TERRAFORM', param: 'terraformId', tag: 'Terraforms' },
] as const;
type Kind = (typeof SERVICE_KINDS)[number];

export function serviceOfKind(ctx: EmulatorContext, kind: Kind, id: string): ApiRecord {
  const svc = Object.hasOwn(ctx.state.services, id) ? ctx.state.services[id] : undefined;
  if (!svc || svc.service_type !== kind.type) throw notFound(kind.segment, id);
  return svc;
}

function environmentOf(ctx: EmulatorContext, svc: ApiRecord): string {
  const envId = environmentIdOfService(svc);
  if (!envId || !ctx.state.environments[envId]) throw notFound('environment', String(envId));
  return envId;
}

const JOB_EVENTS: Record<string, (job: ApiRecord) => unknown> = {
  START: (j) => j.schedule?.on_start,
  STOP: (j) => j.schedule?.on_stop,
  DELETE: (j) => j.schedule?.on_delete,
  CRON: (j) => j.schedule?.cronjob,
};

/** The deploy request of one service, checked (400 names the field). */
function deployRequest(svc: ApiRecord, body: Q, field = 'request body'): ServiceRequest {
  const version: ServiceRequest['version'] = {};
  let sub_action: string | undefined;
  switch (svc.service_type) {
    case 'APPLICATION':
      if (body.git_commit_id) version.git_commit_id = body.git_commit_id;
      break;
    case 'CONTAINER':
      if (body.image_tag) version.image_tag = body.image_tag;
      break;
    case 'JOB':
      if (body.image_tag && body.git_commit_id) {
        throw badRequest(`${field}: 'image_tag' and 'git_commit_id' cannot both be set (image_tag is for jobs built from an image, git_commit_id for jobs built from git)`);
      }
      if (body.image_tag) {
        if (svc.source?.docker) throw invalidField('image_tag', `job '${svc.name}' is built from git; use git_commit_id`);
        version.image_tag = body.image_tag;
      }
      if (body.git_commit_id) {
        if (svc.source?.image) throw invalidField('git_commit_id', `job '${svc.name}' runs an image; use image_tag`);
        version.git_commit_id = body.git_commit_id;
      }
      break;
    case 'HELM':
      if (body.chart_version) version.chart_version = body.chart_version;
      if (body.git_commit_id) version.git_commit_id = body.git_commit_id;
      break;
    case 'TERRAFORM':
      if (body.id && body.id !== svc.id) throw invalidField('id', `must be the id of the terraform service in the path ('${svc.id}') or null`);
      if (body.git_commit_id) version.git_commit_id = body.git_commit_id;
      sub_action = terraformSubAction(body.action);
      break;
  }
  return { service: svc, version, sub_action };
}

/** The deploy body that deploys again what the service runs now (redeploy). */
export function currentVersion(svc: ApiRecord): Q {
  const commit = svc.git_repository?.deployed_commit_id;
  return typeof commit === 'string' && commit ? { git_commit_id: commit } : {};
}

function triggeredBy(req: { headers: Record<string, unknown> }, ctx: EmulatorContext): string {
  // The token's name, never its value.
  const header = String(req.headers.authorization ?? '');
  const value = /^\s*(?:Bearer|Token)\s+(\S+)/i.exec(header)?.[1];
  return ctx.state.tokens.find((t) => t.token === value)?.name ?? 'api-token';
}

export function serviceActionRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  for (const kind of SERVICE_KINDS) {
    const base = `/${kind.segment}/:${kind.param}`;
    const params = uuidParams(kind.param);
    const idOf = (req: { params: unknown }) => String((req.params as Q)[kind.param]);
    const isApp = kind.type === 'APPLICATION';
    const statusSchema = schema('Status');

    const act = (action: Action, body: Q, req: { headers: Record<string, unknown>; params: unknown }) => {
      const svc = serviceOfKind(ctx, kind, idOf(req));
      const envId = environmentOf(ctx, svc);
      const request = action === 'DEPLOY' ? deployRequest(svc, body) : { service: svc };
      startOperation(ctx, { action, environmentId: envId, services: [request], staged: false, triggeredBy: triggeredBy(req, ctx) });
      return statusOf(ctx, svc.id);
    };

    const deployBody: Record<string, string | undefined> = {
      APPLICATION: 'ApplicationDeployRequest',
      CONTAINER: 'ContainerDeployRequest',
      DATABASE: undefined,
      JOB: 'JobDeployRequest',
      HELM: 'HelmDeployRequest',
      TERRAFORM: 'TerraformDeployRequest',
    };
    const bodyName = deployBody[kind.type];
    const querystring = kind.type === 'JOB' ? schema('JobDeployQuery') : kind.type === 'HELM' ? schema('HelmDeployQuery') : undefined;
    app.post(
      `${base}/deploy`,
      {
        config: { ...needs('DEPLOY'), ...(kind.type === 'TERRAFORM' ? { allowIdInBody: true } : {}) },
        schema: {
          ...doc(kind.tag, `Deploy a ${kind.segment}`),
          params,
          ...(bodyName ? { body: schema(bodyName) } : {}),
          ...(querystring ? { querystring } : {}),
          response: { 202: isApp ? schema('ApplicationDeployResponse') : statusSchema, 200: statusSchema, ...errorResponses(402, 409) },
        },
      },
      async (req, reply) => {
        const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Q;
        if (kind.type === 'JOB') {
          const forceEvent = (req.query as Q).forceEvent as string | undefined;
          const job = serviceOfKind(ctx, kind, idOf(req));
          if (forceEvent && !JOB_EVENTS[forceEvent](job)) {
            // Seed 4.2: the job lacks that event, so it is not deployed; its status is unchanged.
            reply.code(200);
            return statusOf(ctx, job.id);
          }
        }
        const status = act('DEPLOY', body, req);
        reply.code(202);
        if (!isApp) return status;
        return { ...status, status: status.state, application_id: status.id, created_at: ctx.nowIso() };
      },
    );

    const simple: Array<[string, Action, string]> = [
      ['redeploy', 'DEPLOY', `Redeploy a ${kind.segment} with the version it runs`],
      ['stop', 'STOP', `Stop a ${kind.segment}`],
      ['restart-service', 'RESTART', `Restart a ${kind.segment}`],
      ['restart', 'RESTART', `Restart a ${kind.segment} (older path)`],
    ];
    for (const [path, action, summary] of simple) {
      app.post(
        `${base}/${path}`,
        { config: needs('DEPLOY'), schema: { ...doc(kind.tag, summary), params, response: { 202: statusSchema, ...errorResponses(402, 409) } } },
        async (req, reply) => {
          const body = path === 'redeploy' ? currentVersion(serviceOfKind(ctx, kind, idOf(req))) : {};
          const status = act(action, body, req);
          reply.code(202);
          return status;
        },
      );
    }

    app.get(
      `${base}/status`,
      { schema: { ...doc(kind.tag, `Status of a ${kind.segment}`), params, response: { 200: isApp ? schema('ApplicationStatus') : statusSchema, ...errorResponses() } } },
      async (req) => statusOf(ctx, serviceOfKind(ctx, kind, idOf(req)).id),
    );

    app.get(
      `${base}/deploymentHistoryV2`,
      {
        schema: {
          ...doc(kind.tag, `Deployment history of a ${kind.segment} (newest first; pageSize, startId)`),
          params,
          querystring: schema('HistoryQuery'),
          response: { 200: schema('DeploymentHistoryServicePage'), ...errorResponses() },
        },
      },
      async (req) => {
        const svc = serviceOfKind(ctx, kind, idOf(req));
        const q = req.query as Q;
        return pageOf(ctx.state.serviceHistory[svc.id] ?? [], q.pageSize, q.startId);
      },
    );

    app.get(
      `${base}/log`,
      {
        schema: {
          ...doc(kind.tag, `Log lines of a ${kind.segment} (the last 1000; tail=N for the last N)`),
          params,
          querystring: schema('LogQuery'),
          response: { 200: listOf('Log'), ...errorResponses() },
        },
      },
      async (req) => {
        const svc = serviceOfKind(ctx, kind, idOf(req));
        return { results: tail(ctx.state.logs[svc.id], (req.query as Q).tail) };
      },
    );
  }
}

const BATCH_FIELDS: Array<{ field: string; type: string; idField?: string }> = [
  { field: 'applications', type: 'APPLICATION', idField: 'application_id' },
  { field: 'containers', type: 'CONTAINER', idField: 'id' },
  { field: 'databases', type: 'DATABASE' },
  { field: 'jobs', type: 'JOB', idField: 'id' },
  { field: 'helms', type: 'HELM', idField: 'id' },
  { field: 'terraforms', type: 'TERRAFORM', idField: 'id' },
];

const ID_LIST_FIELDS: Array<{ field: string; type: string }> = [
  { field: 'application_ids', type: 'APPLICATION' },
  { field: 'container_ids', type: 'CONTAINER' },
  { field: 'database_ids', type: 'DATABASE' },
  { field: 'job_ids', type: 'JOB' },
  { field: 'helm_ids', type: 'HELM' },
  { field: 'terraform_ids', type: 'TERRAFORM' },
];

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
      { config: needs('DEPLOY'), schema: { ...doc('Environment Actions', summary), params, response: { 202: envStatusSchema, ...errorResponses(402, 409) } } },
      async (req, reply) => {
        const envId = requireEnvironment(ctx, envIdOf(req)).id;
        const services = action === 'STOP' ? servicesOfEnvironment(ctx.state, envId) : unskippedServices(ctx, envId);
        if (services.length === 0) throw badRequest(`environment '${envId}' has no service to ${action.toLowerCase()}`);
        const requests = services.map((s) => (path === 'redeploy' ? deployRequest(s, currentVersion(s)) : { service: s }));
        startOperation(ctx, { action, environmentId: envId, services: requests, staged: true, triggeredBy: triggeredBy(req, ctx) });
        reply.code(202);
        return environmentStatus(ctx, envId);
      },
    );
  }

  const selected: Array<[string, Action, string, Array<{ field: string; type: string }>, string]> = [
    ['delete', 'DELETE', 'Delete the selected services (asynchronous: DELETE_QUEUED, DELETING, then gone)', ID_LIST_FIELDS, 'EnvironmentServiceIdsAllRequest'],
    ['stop', 'STOP', 'Stop the selected services', ID_LIST_FIELDS, 'EnvironmentServiceIdsAllRequest'],
    ['restart-service', 'RESTART', 'Restart the selected services', ID_LIST_FIELDS.filter((f) => ['APPLICATION', 'DATABASE', 'CONTAINER'].includes(f.type)), 'RestartServicesRequest'],
  ];
  for (const [path, action, summary, fields, bodyName] of selected) {
    app.post(
      `/environment/:environmentId/service/${path}`,
      {
        config: action === 'DELETE' ? needs('WRITE') : needs('DEPLOY'),
        schema: { ...doc('Environment Actions', summary), params, body: schema(bodyName), response: { 200: { type: 'null', description: 'accepted; the work continues asynchronously' }, 202: envStatusSchema, ...errorResponses(402, 409) } },
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
          return environmentStatus(ctx, envId);
        }
        // api-notes §3: 200 with no body; the services move on in the background.
        reply.code(200).send();
        return reply;
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
