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
 */
import type { TokenRecord, TokenScope } from './state.js';

export type Requirement = TokenScope;

export interface RouteAuthConfig {
  scope?: Requirement;
  /** Served without a token (GET /openapi.json). */
  public?: boolean;
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
