/**
 * Database clone and backups (seed 4.2, 2.13; api-notes §4):
 *
 * - `POST /database/{id}/clone` {name, environment_id} -> 202 with the new database: the same
 *   configuration (type, version, mode, resources, groups...) under a new id and name, in the
 *   target environment's first deployment stage, never deployed;
 * - `POST /database/{id}/backup` {name, message} -> 201 backup record; `GET` lists them newest first,
 *   paged like the deployment histories (pageSize, startId = id of the last backup seen).
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { badRequest, invalidField } from '../errors.js';
import { doc, errorResponses, uuidParams } from '../routes/common.js';
import { schema } from '../schemas.js';
import { createServiceStatus } from '../service-status.js';
import { checkResources } from '../services/fields.js';
import { presentService } from '../services/kinds.js';
import { firstStage, placeService } from '../stages.js';
import type { ApiRecord } from '../state.js';
import { assertUniqueName } from '../store.js';
import { servicesOfEnvironment, shortId } from '../variables/builtins.js';
import { statusOf } from './effects.js';
import { pageOf } from './history.js';
import { SERVICE_KINDS, serviceOfKind } from './requests.js';

type Q = Record<string, any>;
const DATABASE = SERVICE_KINDS.find((k) => k.type === 'DATABASE')!;

/** The fields a clone gets fresh; everything else is copied. */
export function cloneDatabaseRecord(source: ApiRecord, fields: { id: string; name: string; environmentId: string; now: string }): ApiRecord {
  const host = typeof source.host === 'string' ? source.host.split(shortId(source.id).toLowerCase()).join(shortId(fields.id).toLowerCase()) : source.host;
  return {
    ...structuredClone(source),
    id: fields.id,
    created_at: fields.now,
    updated_at: fields.now,
    name: fields.name,
    environment: { id: fields.environmentId },
    ...(host !== undefined ? { host } : {}),
  };
}

export function databaseRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const params = uuidParams('databaseId');
  const dbOf = (req: { params: unknown }) => serviceOfKind(ctx, DATABASE, String((req.params as Q).databaseId));

  app.post(
    '/database/:databaseId/clone',
    {
      schema: {
        ...doc('Databases', 'Clone a database into an environment (same configuration, new name)'),
        params,
        body: schema('CloneDatabaseRequest'),
        response: { 202: schema('Database'), ...errorResponses(409) },
      },
    },
    async (req, reply) => {
      const source = dbOf(req);
      const b = req.body as Q;
      const target = Object.hasOwn(ctx.state.environments, b.environment_id) ? ctx.state.environments[b.environment_id] : undefined;
      if (!target) throw invalidField('environment_id', `no environment with id '${b.environment_id}'`);
      assertUniqueName(servicesOfEnvironment(ctx.state, target.id), b.name, 'service in the target environment');
      const clone = cloneDatabaseRecord(source, { id: ctx.newId(), name: b.name, environmentId: target.id, now: ctx.nowIso() });
      // The copied cpu/memory must fit the target environment's cluster (maximum_cpu/maximum_memory).
      // (seed 2.4: ignored in managed mode, where instance_type sizes the database)
      if (clone.mode !== 'MANAGED') checkResources(ctx, target, clone);
      ctx.state.services[clone.id] = clone;
      createServiceStatus(ctx, clone.id);
      placeService(ctx, firstStage(ctx, target.id).id, clone);
      reply.code(202);
      return presentService(ctx, clone);
    },
  );

  app.post(
    '/database/:databaseId/backup',
    {
      schema: {
        ...doc('Databases', 'Back up a database'),
        params,
        body: schema('BackupRequest'),
        response: { 201: schema('Backup'), ...errorResponses() },
      },
    },
    async (req, reply) => {
      const db = dbOf(req);
      if (statusOf(ctx, db.id).service_deployment_status === 'NEVER_DEPLOYED') {
        throw badRequest(`database '${db.name}' has never been deployed: there is no data to back up yet`);
      }
      const b = req.body as Q;
      const now = ctx.nowIso();
      const id = ctx.newId();
      const backup: ApiRecord = {
        id,
        created_at: now,
        updated_at: now,
        name: b.name,
        message: b.message,
        database_id: db.id,
        status: {
          id,
          state: 'DEPLOYED',
          service_deployment_status: 'UP_TO_DATE',
          is_part_last_deployment: false,
          status_details: { action: 'DEPLOY', status: 'SUCCESS', sub_action: 'NONE' },
          deployment_request_id: null,
          deployment_requests_count: 0,
          last_deployment_date: now,
        },
      };
      ctx.state.backups[id] = backup;
      reply.code(201);
      return backup;
    },
  );

  app.get(
    '/database/:databaseId/backup',
    {
      schema: {
        ...doc('Databases', 'Backups of a database, newest first (pageSize, startId)'),
        params,
        querystring: schema('HistoryQuery'),
        response: { 200: schema('BackupPage'), ...errorResponses() },
      },
    },
    async (req) => {
      const db = dbOf(req);
      const q = req.query as Q;
      const mine = Object.values(ctx.state.backups)
        .filter((b) => b.database_id === db.id)
        .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
      return pageOf(mine, q.pageSize, q.startId);
    },
  );
}

