/**
 * The Authorization header: `Token <api-token>` for API tokens, `Bearer <jwt>` for OIDC tokens
 * (seed section 5 accepts both). The scheme is detected from the token's shape unless told.
 */
export type AuthScheme = 'Token' | 'Bearer';

/** Accepts `token`, `Token`, `bearer`, `BEARER`, `auto`; anything else is a user error. */
export function parseAuthScheme(value: string | undefined): AuthScheme | 'auto' {
  if (value === undefined || value === '' || value.toLowerCase() === 'auto') return 'auto';
  const v = value.toLowerCase();
  if (v === 'token') return 'Token';
  if (v === 'bearer') return 'Bearer';
  throw new Error(`unknown auth scheme "${value}": allowed values are token, bearer, auto`);
}

/**
 * A JWT is three base64url parts separated by dots, the first of which decodes to a JSON object
 * (the JOSE header). Checking the header keeps a dotted API token from being taken for a JWT.
 */
export function looksLikeJwt(token: string): boolean {
  const parts = token.split('.');
  if (parts.length !== 3) return false;
  const b64url = /^[A-Za-z0-9_-]+$/;
  if (!b64url.test(parts[0]!) || !b64url.test(parts[1]!) || !/^[A-Za-z0-9_-]*$/.test(parts[2]!)) return false;
  try {
    const header: unknown = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && !Array.isArray(header);
  } catch {
    return false;
  }
}

export function authScheme(token: string, scheme: AuthScheme | 'auto' = 'auto'): AuthScheme {
  if (scheme !== 'auto') return scheme;
  return looksLikeJwt(token) ? 'Bearer' : 'Token';
}

export function authorizationHeader(token: string, scheme: AuthScheme | 'auto' = 'auto'): string {
  return `${authScheme(token, scheme)} ${token}`;
}
