/**
 * Per-service action routes (seed 2.9, 4.2; api-notes §4, §9): `POST /<kind>/{id}/deploy|redeploy|
 * stop|restart-service`, `GET .../status`, `GET .../deploymentHistoryV2`, `GET .../log?tail=N`.
 * Actions answer at once (202 with the status record) and run in the background (engine.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { needs } from '../auth.js';
import { doc, errorResponses, uuidParams } from '../routes/common.js';
import { listOf, schema } from '../schemas.js';
import { statusOf } from './effects.js';
import { pageOf } from './history.js';
import { tail } from './logs.js';
import { JOB_EVENTS, SERVICE_KINDS, type Q, currentVersion, deployRequest, environmentOf, serviceOfKind, triggeredBy } from './requests.js';
import { startOperation } from './start.js';
import type { Action } from './timeline.js';

export function serviceActionRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  for (const kind of SERVICE_KINDS) {
    const base = `/${kind.segment}/:${kind.param}`;
    const params = uuidParams(kind.param);
    const idOf = (req: { params: unknown }) => String((req.params as Q)[kind.param]);
    const isApp = kind.type === 'APPLICATION';
    const statusSchema = schema('Status');

    const act = (action: Action, body: Q, req: { headers: Record<string, unknown>; params: unknown }, redeploy = false) => {
      const svc = serviceOfKind(ctx, kind, idOf(req));
      const envId = environmentOf(ctx, svc);
      const request = action === 'DEPLOY' ? deployRequest(svc, body) : { service: svc };
      startOperation(ctx, { action, environmentId: envId, services: [request], staged: false, triggeredBy: triggeredBy(req, ctx), redeploy });
      return statusOf(ctx, svc.id);
    };

    const bodyName = kind.def.deploy.body;
    const querystring = kind.def.deploy.query ? schema(kind.def.deploy.query) : undefined;
    app.post(
      `${base}/deploy`,
      {
        config: { ...needs('DEPLOY'), ...(kind.def.deploy.idInBody ? { allowIdInBody: true } : {}) },
        schema: {
          ...doc(kind.tag, `Deploy a ${kind.segment}`),
          params,
          ...(bodyName ? { body: schema(bodyName) } : {}),
          ...(querystring ? { querystring } : {}),
          // 200: a job given a forceEvent it lacks is not deployed (seed 4.2); other kinds always answer 202.
          response: { 202: isApp ? schema('ApplicationDeployResponse') : statusSchema, ...(kind.type === 'JOB' ? { 200: statusSchema } : {}), ...errorResponses(402, 409) },
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
          const status = act(action, body, req, path === 'redeploy');
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
