/**
 * `GET /organization/{organizationId}/events` (getOrganizationEvents) and
 * `GET /organization/{organizationId}/targets` (getOrganizationEventTargets), as the reference
 * document defines them. Events are listed newest first, `pageSize` at a time; `links.next`
 * (`continueToken`) leads to older ones, `links.previous` (`stepBackToken`) to newer ones.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { ApiError } from '../errors.js';
import { schema } from '../schemas.js';
import { checkOrganization } from '../store.js';
import { doc, errorResponses, uuidParams } from '../routes/common.js';
import { allEvents, queryEvents, type EventFilter } from './log.js';
import { parseNanos } from './timestamps.js';
import { KINDS } from '../services/kinds.js';

export const DEFAULT_EVENT_PAGE_SIZE = 10;
export const MAX_EVENT_PAGE_SIZE = 100;

const TAG = 'Organization Event';
const text = (description: string) => ({ type: 'string', description });
const timestamp = (description: string) => ({ type: 'string', nullable: true, description: `${description}: RFC 3339 with up to 9 fractional digits, e.g. 2026-11-25T16:23:04.123456789Z` });
const uuid = (description: string) => ({ type: 'string', format: 'uuid', description });

const commonFilters = {
  fromTimestamp: timestamp('Events at or after this instant'),
  toTimestamp: timestamp('Events at or before this instant'),
  eventType: schema('OrganizationEventType'),
  targetType: schema('OrganizationEventTargetType'),
  triggeredBy: text('Who triggered the event (an API token name or a console user e-mail), case-insensitive'),
  origin: schema('OrganizationEventOrigin'),
};

const eventsQuery = {
  type: 'object',
  properties: {
    pageSize: { type: 'integer', minimum: 1, maximum: MAX_EVENT_PAGE_SIZE, nullable: true, description: `Events per page (default ${DEFAULT_EVENT_PAGE_SIZE})` },
    ...commonFilters,
    continueToken: text('The next (older) page: links.next carries it'),
    stepBackToken: text('The previous (newer) page: links.previous carries it'),
    targetId: { ...uuid('Events of this target; needs targetType'), nullable: true },
    subTargetType: { ...schema('OrganizationEventSubTargetType'), nullable: true },
    serviceProjectId: text('Events of this project (the reference: when filtering on a service type)'),
    serviceEnvironmentId: text('Events of this environment (the reference: when filtering on a service type)'),
    projectId: uuid('Events of this project, whatever the target type (emulator extension)'),
    environmentId: uuid('Events of this environment, whatever the target type (emulator extension)'),
  },
};

const targetsQuery = {
  type: 'object',
  properties: {
    ...commonFilters,
    projectId: uuid('Mandatory when requesting environments or services'),
    environmentId: uuid('Mandatory when requesting services'),
    targetLevelToFetch: schema('OrganizationEventTargetLevel'),
  },
};

type Query = Record<string, string | number | null | undefined>;

function instant(q: Query, name: string): bigint | undefined {
  const v = q[name];
  if (v === undefined || v === null || v === '') return undefined;
  const ns = parseNanos(String(v));
  if (ns === undefined) {
    throw new ApiError(400, `query parameter '${name}' must be an RFC 3339 timestamp such as 2026-11-25T16:23:04.123456789Z (up to 9 fractional digits, Z or an offset), got '${String(v).slice(0, 60)}'`);
  }
  return ns;
}

function str(q: Query, name: string): string | undefined {
  const v = q[name];
  return v === undefined || v === null || v === '' ? undefined : String(v);
}

function sameOrConflict(q: Query, a: string, b: string): string | undefined {
  const x = str(q, a);
  const y = str(q, b);
  if (x !== undefined && y !== undefined && x !== y) throw new ApiError(400, `query parameters '${a}' and '${b}' name different ids: give one of them`);
  return x ?? y;
}

function filterOf(q: Query): EventFilter {
  const from = instant(q, 'fromTimestamp');
  const to = instant(q, 'toTimestamp');
  if (from !== undefined && to !== undefined && from > to) throw new ApiError(400, "query parameter 'fromTimestamp' is after 'toTimestamp': the range is empty");
  return {
    from,
    to,
    eventType: str(q, 'eventType'),
    targetType: str(q, 'targetType'),
    targetId: str(q, 'targetId'),
    subTargetType: str(q, 'subTargetType'),
    triggeredBy: str(q, 'triggeredBy'),
    origin: str(q, 'origin'),
    projectId: sameOrConflict(q, 'projectId', 'serviceProjectId'),
    environmentId: sameOrConflict(q, 'environmentId', 'serviceEnvironmentId'),
  };
}

/** The same request (path as the client sent it, same filters) with one page token. */
function pageLink(req: FastifyRequest, token: 'continueToken' | 'stepBackToken', value: string): string {
  const url = new URL(req.originalUrl, `http://${req.headers.host ?? 'localhost'}`);
  url.searchParams.delete('continueToken');
  url.searchParams.delete('stepBackToken');
  url.searchParams.set(token, value);
  return url.toString();
}

export function auditRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get<{ Params: { organizationId: string }; Querystring: Query }>(
    '/organization/:organizationId/events',
    {
      schema: {
        ...doc(TAG, 'Get all events inside the organization (the audit log), newest first'),
        params: uuidParams('organizationId'),
        querystring: eventsQuery,
        response: { 200: schema('OrganizationEventResponseList'), ...errorResponses() },
      },
    },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      const q = req.query;
      const f = filterOf(q);
      if (f.targetId !== undefined && f.targetType === undefined) throw new ApiError(400, "query parameter 'targetId' needs 'targetType' (the type of that target)");
      const continueFrom = instant(q, 'continueToken');
      const stepBackFrom = instant(q, 'stepBackToken');
      if (continueFrom !== undefined && stepBackFrom !== undefined) throw new ApiError(400, "query parameters 'continueToken' and 'stepBackToken' go one way each: give one of them");
      const pageSize = typeof q.pageSize === 'number' ? q.pageSize : DEFAULT_EVENT_PAGE_SIZE;
      const page = queryEvents(ctx, f, { continueFrom, stepBackFrom }, pageSize);
      return {
        links: {
          ...(page.previous ? { previous: pageLink(req, 'stepBackToken', page.previous) } : {}),
          ...(page.next ? { next: pageLink(req, 'continueToken', page.next) } : {}),
        },
        organization_max_limit_reached: page.limitReached,
        events: page.events,
      };
    },
  );

  app.get<{ Params: { organizationId: string }; Querystring: Query }>(
    '/organization/:organizationId/targets',
    {
      schema: {
        ...doc(TAG, 'Get the targets of the events (to filter events by target)'),
        params: uuidParams('organizationId'),
        querystring: targetsQuery,
        response: { 200: schema('OrganizationEventTargetResponseList'), ...errorResponses() },
      },
    },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      const q = req.query;
      const level = str(q, 'targetLevelToFetch');
      const targetType = str(q, 'targetType');
      const projectId = str(q, 'projectId');
      const environmentId = str(q, 'environmentId');
      const wantsEnvironments = level === 'ENVIRONMENT' || (level === undefined && targetType === 'ENVIRONMENT');
      const wantsServices = level === undefined && targetType !== undefined && SERVICE_TARGETS.has(targetType);
      if ((wantsEnvironments || wantsServices) && projectId === undefined) {
        throw new ApiError(400, `query parameter 'projectId' is required to list ${wantsServices ? 'services' : 'environments'}`);
      }
      if (wantsServices && environmentId === undefined) throw new ApiError(400, "query parameter 'environmentId' is required to list services");
      const f: EventFilter = { ...filterOf({ ...q, projectId: undefined, environmentId: undefined }), projectId, environmentId };
      // Newest last: the latest name of each target wins.
      const found = new Map<string, string>();
      for (const e of allEvents(ctx, f)) {
        const [id, name] = level === 'PROJECT' ? [e.project_id, e.project_name] : level === 'ENVIRONMENT' ? [e.environment_id, e.environment_name] : [e.target_id, e.target_name];
        if (id) found.set(id, name ?? found.get(id) ?? '');
      }
      return { targets: [...found].map(([id, name]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id)) };
    },
  );
}

/** A service's audit `target_type` is its `service_type` (services/kinds.ts). */
const SERVICE_TARGETS = new Set(KINDS.map((k) => k.type));
