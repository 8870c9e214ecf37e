/**
 * What an action request names: the service of a path (404 when it is not of that kind), and the
 * checked deploy request of one service (400 naming the field), shared by the per-service and the
 * batch routes.
 */
import { findToken, parseAuthorization } from '../auth.js';
import { identityOf } from '../audit/identity.js';
import type { EmulatorContext } from '../context.js';
import { notFound } from '../errors.js';
import type { ApiRecord } from '../state.js';
import { environmentIdOfService } from '../variables/scopes.js';
import type { ServiceRequest } from './start.js';
import { KINDS, idParamOf, kindOfType } from '../services/kinds.js';

export type Q = Record<string, any>;

/** The service kinds (services/kinds.ts): their path segment, type and id parameter. */
export const SERVICE_KINDS = KINDS.map((k) => ({ segment: k.kind, type: k.type, param: idParamOf(k), tag: k.tag, def: k }));
export type Kind = (typeof SERVICE_KINDS)[number];

export function serviceOfKind(ctx: EmulatorContext, kind: Kind, id: string): ApiRecord {
  const svc = Object.hasOwn(ctx.state.services, id) ? ctx.state.services[id] : undefined;
  if (!svc || svc.service_type !== kind.type) throw notFound(kind.segment, id);
  return svc;
}

export function environmentOf(ctx: EmulatorContext, svc: ApiRecord): string {
  const envId = environmentIdOfService(svc);
  if (!envId || !ctx.state.environments[envId]) throw notFound('environment', String(envId));
  return envId;
}

export const JOB_EVENTS: Record<string, (job: ApiRecord) => unknown> = {
  START: (j) => j.schedule?.on_start,
  STOP: (j) => j.schedule?.on_stop,
  DELETE: (j) => j.schedule?.on_delete,
  CRON: (j) => j.schedule?.cronjob,
};

/** The deploy request of one service, checked (400 names the field). */
export function deployRequest(svc: ApiRecord, body: Q, field = 'request body'): ServiceRequest {
  const asked = kindOfType(svc.service_type)?.deployVersion?.(svc, body, field) ?? { version: {} };
  return { service: svc, version: asked.version, sub_action: asked.sub_action };
}

/** The deploy body that deploys again what the service runs now (redeploy). */
export function currentVersion(svc: ApiRecord): Q {
  const commit = svc.git_repository?.deployed_commit_id;
  return typeof commit === 'string' && commit ? { git_commit_id: commit } : {};
}

export function triggeredBy(req: { headers: Record<string, unknown> }, ctx: EmulatorContext): string {
  // The token's name (a console user's e-mail), never its value: the audit log's triggered_by.
  const header = req.headers.authorization;
  return identityOf(findToken(ctx.state.tokens, parseAuthorization(typeof header === 'string' ? header : undefined))).triggered_by;
}

