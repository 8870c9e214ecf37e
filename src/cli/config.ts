/**
 * Connection and presentation settings shared by the commands that talk to the API.
 *
 * The token comes from DRIFTLESS_API_TOKEN only: a command-line argument would end up in shell
 * history and process listings. Nothing here ever puts the token into a message.
 */
import { looksLikeJwt } from '../api/auth.js';
import { error, type Diagnostic } from '../diag/diagnostic.js';
import { shouldUseColor } from '../diag/render.js';
import { createPalette, type Palette } from '../render/palette.js';
import type { CliIO } from './io.js';

export type AuthScheme = 'Token' | 'Bearer';

export interface ApiConfig {
  baseUrl: string;
  token: string;
  authScheme: AuthScheme;
  /** Per-request timeout (DRIFTLESS_REQUEST_TIMEOUT, seconds); the client's default when unset. */
  requestTimeoutMs?: number;
  /** Longest rate-limit wait (--max-wait, else DRIFTLESS_MAX_WAIT), ms; no cap when unset. */
  maxWaitMs?: number;
}

export interface ApiConfigArgs {
  apiUrl?: string;
  authScheme?: string;
  /** --max-wait, in seconds (already read and checked by its option reader); wins over the variable. */
  maxWait?: number;
}

/** The largest cap accepted, in seconds (a day): longer is no cap a CI job could want. */
export const MAX_WAIT_LIMIT_S = 86_400;

/** A JWT is sent as `Bearer`, an API token as `Token`: the client's own test (api/auth.ts). */
export { looksLikeJwt };

export function resolveApiConfig(
  args: ApiConfigArgs,
  env: NodeJS.ProcessEnv,
): { config?: ApiConfig; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const rawUrl = args.apiUrl ?? env.DRIFTLESS_API_URL;
  let baseUrl: string | undefined;
  if (!rawUrl) {
    diagnostics.push(
      error('config.api-url-missing', 'No API URL given.', {
        detail: 'Set DRIFTLESS_API_URL or pass --api-url (for example http://127.0.0.1:8080 from `driftless serve`).',
      }),
    );
  } else {
    try {
      const u = new URL(rawUrl);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
      if (u.username || u.password) {
        diagnostics.push(
          error('config.api-url-credentials', 'The API URL must not contain credentials.', {
            detail: 'Put the token in DRIFTLESS_API_TOKEN instead.',
          }),
        );
      }
      baseUrl = u.toString().replace(/\/+$/, '');
    } catch {
      diagnostics.push(
        error('config.api-url-invalid', `The API URL ${JSON.stringify(rawUrl)} is not an http(s) URL.`, {
          detail: 'Allowed: http://host[:port][/prefix] or https://host[:port][/prefix].',
        }),
      );
    }
  }
  const token = env.DRIFTLESS_API_TOKEN?.trim();
  if (!token) {
    diagnostics.push(
      error('config.token-missing', 'No API token given.', {
        detail: 'Set DRIFTLESS_API_TOKEN (the token is never accepted as a command-line argument).',
      }),
    );
  } else if (!/^[\x21-\x7e]+$/.test(token)) {
    // An HTTP header carries visible ASCII only: said here, as a diagnostic, before any client is
    // made (the client refuses such a token too); the token itself is never repeated.
    diagnostics.push(
      error('config.token-invalid', 'DRIFTLESS_API_TOKEN contains spaces, line breaks or non-ASCII characters.', {
        detail: 'Copy the token again from where it was created: an API token is visible ASCII only.',
      }),
    );
  }
  let authScheme: AuthScheme | undefined;
  if (args.authScheme !== undefined) {
    const s = args.authScheme.toLowerCase();
    if (s === 'token') authScheme = 'Token';
    else if (s === 'bearer') authScheme = 'Bearer';
    else
      diagnostics.push(
        error('config.auth-scheme-invalid', `Unknown --auth-scheme ${JSON.stringify(args.authScheme)}.`, {
          detail: 'Allowed: Token, Bearer.',
        }),
      );
  }
  let requestTimeoutMs: number | undefined;
  const rawTimeout = env.DRIFTLESS_REQUEST_TIMEOUT?.trim();
  if (rawTimeout) {
    const seconds = /^\d+(\.\d+)?$/.test(rawTimeout) ? Number(rawTimeout) : NaN;
    if (!(seconds > 0 && seconds <= 3600)) {
      diagnostics.push(
        error('config.request-timeout-invalid', `DRIFTLESS_REQUEST_TIMEOUT must be a number of seconds from 0.001 to 3600 (got ${JSON.stringify(rawTimeout.slice(0, 40))}).`, {
          detail: 'It is how long one API request may take before it is abandoned (and retried when that is safe). Default: 30.',
        }),
      );
    } else {
      requestTimeoutMs = Math.max(1, Math.round(seconds * 1000));
    }
  }
  let maxWaitMs = args.maxWait !== undefined ? args.maxWait * 1000 : undefined;
  const rawMaxWait = env.DRIFTLESS_MAX_WAIT?.trim();
  if (maxWaitMs === undefined && rawMaxWait) {
    const seconds = /^\d+$/.test(rawMaxWait) ? Number(rawMaxWait) : NaN;
    if (!(seconds >= 0 && seconds <= MAX_WAIT_LIMIT_S)) {
      diagnostics.push(
        error('config.max-wait-invalid', `DRIFTLESS_MAX_WAIT must be a whole number of seconds from 0 to ${MAX_WAIT_LIMIT_S} (got ${JSON.stringify(rawMaxWait.slice(0, 40))}).`, {
          detail: 'It caps how long a command waits for the API rate limit to reset; past it the command fails with exit 1. Unset: no cap. --max-wait SECONDS wins over it.',
        }),
      );
    } else {
      maxWaitMs = seconds * 1000;
    }
  }
  if (diagnostics.length > 0 || !baseUrl || !token) return { diagnostics };
  return {
    config: { baseUrl, token, authScheme: authScheme ?? (looksLikeJwt(token) ? 'Bearer' : 'Token'), ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}), ...(maxWaitMs !== undefined ? { maxWaitMs } : {}) },
    diagnostics,
  };
}

/**
 * Whether `io.stdout` gets colour: the same rule as the diagnostics' (`shouldUseColor`: a terminal,
 * FORCE_COLOR, never with NO_COLOR, TERM=dumb or --no-color), so every command decides alike.
 */
export function colourEnabled(io: CliIO, args: { color?: boolean; noColor?: boolean }): boolean {
  return shouldUseColor({ isTTY: io.stdout.isTTY, env: io.env, noColor: args.color === false || args.noColor === true });
}

/** The palettes of a command's stdout and stderr, each coloured (or not) for its own stream. */
export function palettesOf(io: CliIO, args: { color?: boolean; noColor?: boolean }): { out: Palette; err: Palette } {
  return { out: createPalette(colourEnabled(io, args)), err: createPalette(colourEnabled({ ...io, stdout: io.stderr }, args)) };
}
