/**
 * The webhook-delivery part of the emulator: the delivery log route
 * (`GET /organization/{organizationId}/webhook/{webhookId}/event`) and the initializer that turns
 * deployment events into deliveries and resumes pending ones after a restart.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { notFound } from '../errors.js';
import { doc, errorResponses, uuidParams } from '../routes/common.js';
import { listOf } from '../schemas.js';
import { checkOrganization } from '../store.js';
import { webhookDispatcher } from './delivery.js';

export { webhookDispatcher, DEFAULT_DELIVERY_CONFIG, type DeliveryConfig } from './delivery.js';
export { SIGNATURE_HEADER, signBody, verifySignature } from './signature.js';

export function webhookDeliveryRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  app.addHook('onClose', async () => webhookDispatcher(ctx).close());
  app.get<{ Params: { organizationId: string; webhookId: string } }>(
    '/organization/:organizationId/webhook/:webhookId/event',
    {
      schema: {
        ...doc('Organization Webhook', 'Deliveries of a webhook, newest first'),
        params: uuidParams('organizationId', 'webhookId'),
        response: { 200: listOf('WebhookDelivery'), ...errorResponses() },
      },
    },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      const webhookId = req.params.webhookId;
      if (!Object.hasOwn(ctx.state.webhooks, webhookId)) throw notFound('webhook', webhookId);
      const mine = Object.values(ctx.state.webhookDeliveries).filter((d) => d.webhook_id === webhookId);
      // Newest first; insertion order breaks ties between deliveries of the same millisecond.
      return { results: mine.map((d, i) => ({ d, i })).sort((a, b) => (a.d.created_at === b.d.created_at ? b.i - a.i : a.d.created_at < b.d.created_at ? 1 : -1)).map(({ d }) => d) };
    },
  );
}

export function initWebhookDelivery(ctx: EmulatorContext): void {
  const dispatcher = webhookDispatcher(ctx);
  ctx.events.on('deployment', (e) => dispatcher.onDeployment(e));
  dispatcher.resume();
}
