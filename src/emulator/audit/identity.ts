/**
 * Who made a change, as the audit log says it: `triggered_by` and `origin`.
 *
 * An API token's writes are `origin: API`, `triggered_by` the token's name (never its value). The
 * console user's token is a Bearer JWT (header.payload.signature, as the real console sends), its
 * writes are `origin: CONSOLE`, `triggered_by` the user's e-mail address: tests, the demo and users
 * make "console" edits with it that look like the real ones.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { TokenRecord } from '../state.js';

export interface Identity {
  triggered_by: string;
  origin: 'API' | 'CONSOLE';
}

/** The e-mail address of the emulator's console user. */
export const DEFAULT_CONSOLE_USER = 'ops-oncall@example.com';

/** Anonymous writes cannot happen (every route needs a token); background work keeps its trigger's identity. */
export const UNKNOWN_IDENTITY: Identity = { triggered_by: 'api-token', origin: 'API' };

export function identityOf(token: TokenRecord | undefined): Identity {
  if (!token) return UNKNOWN_IDENTITY;
  // A seed's token may have no name: it is then known by its scope, never by its value.
  return { triggered_by: token.name || `${token.scope.toLowerCase()} token`, origin: token.origin === 'CONSOLE' ? 'CONSOLE' : 'API' };
}

const b64url = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/**
 * A console user's token: an HS256-signed JWT with the user's e-mail and organization. The
 * emulator recognises it by its exact value (like any token); its signing key is thrown away.
 */
export function consoleTokenRecord(organizationId: string, email: string = DEFAULT_CONSOLE_USER, nowS: number = Math.floor(Date.now() / 1000)): TokenRecord {
  const header = b64url({ alg: 'HS256', typ: 'JWT' });
  const payload = b64url({ sub: randomUUID(), email, 'https://qovery.com/organization_id': organizationId, iat: nowS, jti: randomUUID() });
  const signature = createHmac('sha256', randomBytes(32)).update(`${header}.${payload}`).digest('base64url');
  return { token: `${header}.${payload}.${signature}`, scope: 'ADMIN', name: email, organization_id: organizationId, origin: 'CONSOLE' };
}

export function isConsoleToken(t: TokenRecord): boolean {
  return t.origin === 'CONSOLE';
}
