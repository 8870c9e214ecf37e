/**
 * Webhooks CRUD (seed 4.2 / 6, api-notes 7). Events are the seed's: DEPLOYMENT_STARTED,
 * DEPLOYMENT_SUCCEEDED, DEPLOYMENT_FAILED. `target_secret` is write-only: kept in `webhookSecrets`,
 * reported as `target_secret_set`. PUT replaces the record, except that an omitted target_secret
 * keeps its value (null removes it), so a reconciler can edit a webhook without re-sending it.
 * Several webhooks may point at the same URL, as in the real service. Delivery lives in
 * src/emulator/webhooks (ops).
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { invalidField } from '../errors.js';
import { listOf, schema } from '../schemas.js';
import type { ApiRecord } from '../state.js';
import { checkOrganization, mustGet, newRecord, updatedRecord } from '../store.js';
import { doc, errorResponses, listQuery, uuidParams } from './common.js';

type Body = Record<string, any>;

function fields(b: Body): Body {
  let url: URL;
  try {
    url = new URL(b.target_url);
  } catch {
    throw invalidField('target_url', 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidField('target_url', 'must be an absolute http or https URL');
  if (new Set(b.events).size !== b.events.length) throw invalidField('events', 'lists an event twice');
  return {
    kind: b.kind ?? 'STANDARD',
    target_url: b.target_url,
    description: b.description ?? null,
    enabled: b.enabled ?? true,
    events: [...b.events],
    project_names_filter: b.project_names_filter ?? [],
    environment_types_filter: b.environment_types_filter ?? [],
  };
}

export function webhookRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const s = ctx.state;
  const webhook = schema('Webhook');
  const present = (w: ApiRecord) => ({ ...w, target_secret_set: Boolean(s.webhookSecrets[w.id]) });
  const base = '/organization/:organizationId/webhook';
  const T = 'Webhooks';

  app.get<{ Params: { organizationId: string } }>(
    base,
    { schema: { ...doc(T, 'List webhooks'), params: uuidParams('organizationId'), querystring: listQuery(), response: { 200: listOf('Webhook'), ...errorResponses() } } },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      return { results: Object.values(s.webhooks).map(present) };
    },
  );

  app.post<{ Params: { organizationId: string }; Body: Body }>(
    base,
    { schema: { ...doc(T, 'Create a webhook'), params: uuidParams('organizationId'), body: schema('WebhookRequest'), response: { 201: webhook, ...errorResponses() } } },
    async (req, reply) => {
      checkOrganization(ctx, req.params.organizationId);
      const w = newRecord(ctx, fields(req.body));
      s.webhooks[w.id] = w;
      if (req.body.target_secret) s.webhookSecrets[w.id] = req.body.target_secret;
      reply.code(201);
      return present(w);
    },
  );

  app.get<{ Params: { organizationId: string; webhookId: string } }>(
    `${base}/:webhookId`,
    { schema: { ...doc(T, 'Get a webhook'), params: uuidParams('organizationId', 'webhookId'), response: { 200: webhook, ...errorResponses() } } },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      return present(mustGet(s.webhooks, req.params.webhookId, 'webhook'));
    },
  );

  app.put<{ Params: { organizationId: string; webhookId: string }; Body: Body }>(
    `${base}/:webhookId`,
    { schema: { ...doc(T, 'Edit a webhook (full replacement; an omitted target_secret is kept)'), params: uuidParams('organizationId', 'webhookId'), body: schema('WebhookRequest'), response: { 200: webhook, ...errorResponses() } } },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      const old = mustGet(s.webhooks, req.params.webhookId, 'webhook');
      const next = updatedRecord(ctx, old, fields(req.body));
      s.webhooks[old.id] = next;
      if (req.body.target_secret === null) delete s.webhookSecrets[old.id];
      else if (req.body.target_secret !== undefined) s.webhookSecrets[old.id] = req.body.target_secret;
      return present(next);
    },
  );

  app.delete<{ Params: { organizationId: string; webhookId: string } }>(
    `${base}/:webhookId`,
    { schema: { ...doc(T, 'Delete a webhook'), params: uuidParams('organizationId', 'webhookId'), response: { 204: { type: 'null' }, ...errorResponses() } } },
    async (req, reply) => {
      checkOrganization(ctx, req.params.organizationId);
      mustGet(s.webhooks, req.params.webhookId, 'webhook');
      delete s.webhooks[req.params.webhookId];
      delete s.webhookSecrets[req.params.webhookId];
      ctx.events.emit('deleted', { kind: 'webhook', id: req.params.webhookId });
      reply.code(204);
    },
  );
}
