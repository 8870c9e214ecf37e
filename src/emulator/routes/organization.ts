/** Organization: GET (seed: the record itself), GET by id, PUT (ADMIN only; `plan` is not editable). */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import { needs } from '../auth.js';
import { schema } from '../schemas.js';
import { checkOrganization, updatedRecord } from '../store.js';
import { doc, errorResponses, uuidParams } from './common.js';

export function organizationRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const record = schema('Organization');
  app.get('/organization', { schema: { ...doc('Organization', 'The organization of the token'), response: { 200: record, ...errorResponses() } } }, async () => ctx.state.organization);

  app.get<{ Params: { organizationId: string } }>(
    '/organization/:organizationId',
    { schema: { ...doc('Organization', 'Get the organization'), params: uuidParams('organizationId'), response: { 200: record, ...errorResponses() } } },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      return ctx.state.organization;
    },
  );

  app.put<{ Params: { organizationId: string }; Body: Record<string, unknown> }>(
    '/organization/:organizationId',
    {
      config: needs('ADMIN'),
      schema: {
        ...doc('Organization', 'Edit the organization (needs ADMIN)'),
        params: uuidParams('organizationId'),
        body: schema('OrganizationEditRequest'),
        response: { 200: record, ...errorResponses(409) },
      },
    },
    async (req) => {
      checkOrganization(ctx, req.params.organizationId);
      // The reference's OrganizationEditRequest makes admin_emails nullable: null is no admin e-mail.
      const body = req.body.admin_emails === null ? { ...req.body, admin_emails: [] } : req.body;
      ctx.state.organization = updatedRecord(ctx, ctx.state.organization, body);
      return ctx.state.organization;
    },
  );
}
