/**
 * Authentication and scopes, seed section 5.
 *
 * `Authorization: Bearer <t>` and `Authorization: Token <t>` are both accepted. A missing or
 * unknown token is 401; a token whose scope does not cover the route is 403.
 *
 * Routes declare what they need with `config: needs('DEPLOY')`. Without a declaration, GET/HEAD
 * need READ and every other method needs WRITE.
 *
 * Coverage: ADMIN covers everything; every scope may read; WRITE creates, updates and deletes;
 * DEPLOY triggers deploy, stop, restart (and cannot write configuration); ADMIN is required where a
 * route says so (editing the organization).
 *
 * Organization: a token acts only in its own organization (`organization_id` of the token). The
 * emulator hosts one organization, which owns every project, environment, service, variable, cluster,
 * receiver... it stores. A token of another organization is refused with 403 (seed 5.6: a token
 * lacking the permission), before the route looks anything up, so it cannot even learn which ids
 * exist. A path naming an organization the emulator does not host is a 404 for any token. Only the
 * cloud providers' catalogs (instance types), which belong to no organization, are served to any
 * valid token.
 */
import type { TokenRecord, TokenScope } from './state.js';

export type Requirement = TokenScope;

export interface RouteAuthConfig {
  scope?: Requirement;
  /** Served without a token (GET /openapi.json). */
  public?: boolean;
  /** Data of no organization (the cloud providers' instance types): any valid token may read it. */
  providerCatalog?: boolean;
}

/** Route option of the cloud-provider catalog routes. */
export const PROVIDER_CATALOG: RouteAuthConfig = { providerCatalog: true };

/**
 * The organization a request acts in: the emulator's organization, which owns everything it
 * serves, unless the path names another one; that one is not here (the route answers 404 for any
 * token: an unknown id tells nothing), so undefined.
 */
export function organizationOfRequest(params: unknown, hostedOrganizationId: string): string | undefined {
  const named = params && typeof params === 'object' ? (params as Record<string, unknown>).organizationId : undefined;
  return typeof named === 'string' && named !== hostedOrganizationId ? undefined : hostedOrganizationId;
}

/** Why this token may not act in that organization, or undefined when it may. */
export function organizationRefusal(token: TokenRecord, organizationId: string | undefined): string | undefined {
  if (organizationId === undefined || token.organization_id === organizationId) return undefined;
  // The refused organization is not named: a foreign token learns nothing about it.
  return `this token belongs to organization '${token.organization_id}' and cannot act in another organization`;
}

/** Route option: `app.post(path, { config: needs('DEPLOY'), schema }, handler)`. */
export function needs(scope: Requirement): { scope: Requirement } {
  return { scope };
}

export function defaultRequirement(method: string): Requirement {
  return method === 'GET' || method === 'HEAD' ? 'READ' : 'WRITE';
}

export function scopeCovers(have: TokenScope, need: Requirement): boolean {
  if (have === 'ADMIN') return true;
  if (need === 'READ') return true;
  return have === need;
}

/** Extracts the token from an Authorization header value, accepting both schemes. */
export function parseAuthorization(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^\s*(Bearer|Token)\s+(\S+)\s*$/i.exec(header);
  return m ? m[2] : undefined;
}

export function findToken(tokens: TokenRecord[], value: string | undefined): TokenRecord | undefined {
  if (!value) return undefined;
  return tokens.find((t) => t.token === value);
}
