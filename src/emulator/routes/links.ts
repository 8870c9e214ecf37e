/**
 * The URLs of services (reference: `listEnvironmentServicesLinks`, `listApplicationLinks`,
 * `listContainerLinks`, `listHelmLinks`): `GET /environment/{id}/link`, `GET /{application|container|helm}/{id}/link`.
 *
 * The emulator has no ingress and no custom domains: every public port of a service gets a
 * generated domain (`is_qovery_domain: true`), derived from the ids of the service and its
 * environment, so it is stable for the life of the service and differs between two environments
 * made from one template (two previews never share a URL). The default port of a service answers at
 * the root of its domain (`is_default: true`); any other public port at `p<port>-` of it, as the
 * reference describes. Applications and containers expose the ports marked `publicly_accessible`;
 * a helm service's ports have no such flag and are all exposed. Databases, jobs and terraform
 * services have no links.
 */
import type { FastifyInstance } from 'fastify';
import type { EmulatorContext } from '../context.js';
import type { ApiRecord } from '../state.js';
import { listOf } from '../schemas.js';
import { mustGet } from '../store.js';
import { notFound } from '../errors.js';
import { servicesIndex } from '../variables/services-by-environment.js';
import { shortId } from '../variables/builtins.js';
import { doc, errorResponses, listQuery, uuidParams } from './common.js';
import { KINDS, kindOfType } from '../services/kinds.js';

/** The parent domain of every generated URL: `.localhost` is reserved, so it never leaves the machine. */
const LINK_DOMAIN = 'emulator.localhost';

interface ServiceLink {
  service_id: string;
  service_type: string;
  url: string;
  internal_port: number;
  external_port: number;
  is_qovery_domain: boolean;
  is_default: boolean;
}

/** The links of one service, default port first. Pure. */
function linksOfService(svc: ApiRecord): ServiceLink[] {
  const type = String(svc.service_type);
  const linked = kindOfType(type)?.links;
  if (linked === undefined) return [];
  const ports = ((svc.ports ?? []) as ApiRecord[]).filter((p) => linked === 'every-port' || p.publicly_accessible === true);
  const host = `${shortId(svc.id).toLowerCase()}-${shortId(String(svc.environment?.id ?? svc.id)).toLowerCase()}.${LINK_DOMAIN}`;
  // One default per service: the port marked so, else the first public one.
  const defaultPort = ports.find((p) => p.is_default === true) ?? ports[0];
  const links = ports.map((p) => {
    const isDefault = p === defaultPort;
    return {
      service_id: svc.id,
      service_type: type,
      url: `https://${isDefault ? '' : `p${p.internal_port}-`}${host}`,
      internal_port: Number(p.internal_port),
      external_port: Number(p.external_port ?? 443),
      is_qovery_domain: true,
      is_default: isDefault,
    };
  });
  return links.sort((a, b) => Number(b.is_default) - Number(a.is_default));
}

/** The kinds with links of their own (services/kinds.ts). */
const SERVICE_LINK_ROUTES = KINDS.filter((k) => k.links !== undefined);

export function linkRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const s = ctx.state;
  app.get<{ Params: { environmentId: string } }>(
    '/environment/:environmentId/link',
    { schema: { ...doc('Environments', 'List the URLs of the services of an environment'), params: uuidParams('environmentId'), querystring: listQuery(), response: { 200: listOf('Link'), ...errorResponses() } } },
    async (req) => {
      mustGet(s.environments, req.params.environmentId, 'environment');
      return { results: servicesIndex(s).of(req.params.environmentId).flatMap(linksOfService) };
    },
  );
  for (const k of SERVICE_LINK_ROUTES) {
    const idParam = `${k.kind}Id`;
    app.get<{ Params: Record<string, string> }>(
      `/${k.kind}/:${idParam}/link`,
      { schema: { ...doc(k.tag, `List the URLs of a ${k.kind}`), params: uuidParams(idParam), querystring: listQuery(), response: { 200: listOf('Link'), ...errorResponses() } } },
      async (req) => {
        const svc = s.services[req.params[idParam]];
        if (!svc || svc.service_type !== k.type) throw notFound(k.kind, req.params[idParam]);
        return { results: linksOfService(svc) };
      },
    );
  }
}
