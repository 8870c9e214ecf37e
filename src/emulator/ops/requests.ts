/**
 * What an action request names: the service of a path (404 when it is not of that kind), and the
 * checked deploy request of one service (400 naming the field), shared by the per-service and the
 * batch routes.
 */
import { findToken, parseAuthorization } from '../auth.js';
import { identityOf } from '../audit/identity.js';
import type { EmulatorContext } from '../context.js';
import { badRequest, invalidField, notFound } from '../errors.js';
import type { ApiRecord } from '../state.js';
import { environmentIdOfService } from '../variables/scopes.js';
import type { ServiceRequest } from './start.js';
import { terraformSubAction } from './timeline.js';

export type Q = Record<string, any>;

export const SERVICE_KINDS = [
  { segment: 'application', type: 'APPLICATION', param: 'applicationId', tag: 'Applications' },
  { segment: 'container', type: 'CONTAINER', param: 'containerId', tag: 'Containers' },
  { segment: 'database', type: 'DATABASE', param: 'databaseId', tag: 'Databases' },
  { segment: 'job', type: 'JOB', param: 'jobId', tag: 'Jobs' },
  { segment: 'helm', type: 'HELM', param: 'helmId', tag: 'Helms' },
  { segment: 'terraform', type: 'TERRAFORM', param: 'terraformId', tag: 'Terraforms' },
] as const;
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

export function triggeredBy(req: { headers: Record<string, unknown> }, ctx: EmulatorContext): string {
  // The token's name (a console user's e-mail), never its value: the audit log's triggered_by.
  const header = req.headers.authorization;
  return identityOf(findToken(ctx.state.tokens, parseAuthorization(typeof header === 'string' ? header : undefined))).triggered_by;
}

