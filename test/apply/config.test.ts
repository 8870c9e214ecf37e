import { describe, expect, it } from 'vitest';
import { colourEnabled, looksLikeJwt, resolveApiConfig } from '../../src/cli/config.js';
import type { CliIO } from '../../src/cli/io.js';

const TOKEN = 'tok_s3cr3t_value';

describe('resolveApiConfig', () => {
  it('takes the URL from --api-url before DRIFTLESS_API_URL and the token from the environment', () => {
    const r = resolveApiConfig(
      { apiUrl: 'http://127.0.0.1:9999/' },
      { DRIFTLESS_API_URL: 'http://ignored:1', DRIFTLESS_API_TOKEN: TOKEN },
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.config).toEqual({ baseUrl: 'http://127.0.0.1:9999', token: TOKEN, authScheme: 'Token' });
  });

  it('sends a JWT as Bearer unless --auth-scheme says otherwise', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';
    expect(looksLikeJwt(jwt)).toBe(true);
    expect(looksLikeJwt(TOKEN)).toBe(false);
    const env = { DRIFTLESS_API_URL: 'https://api.example.com', DRIFTLESS_API_TOKEN: jwt };
    expect(resolveApiConfig({}, env).config?.authScheme).toBe('Bearer');
    expect(resolveApiConfig({ authScheme: 'token' }, env).config?.authScheme).toBe('Token');
  });

  it('sends a dotted API token that is not a JWT as Token, as the client would (three dotted parts were enough for Bearer)', () => {
    const env = { DRIFTLESS_API_URL: 'https://api.example.com', DRIFTLESS_API_TOKEN: 'qov.abc123.def456' };
    expect(looksLikeJwt('qov.abc123.def456')).toBe(false);
    expect(resolveApiConfig({}, env).config?.authScheme).toBe('Token');
  });

  it('names every missing or invalid setting and never echoes the token', () => {
    const r = resolveApiConfig({ authScheme: 'Basic' }, { DRIFTLESS_API_URL: 'ftp://x' });
    expect(r.config).toBeUndefined();
    expect(r.diagnostics.map((d) => d.code).sort()).toEqual([
      'config.api-url-invalid',
      'config.auth-scheme-invalid',
      'config.token-missing',
    ]);
    const bad = resolveApiConfig({ apiUrl: 'not a url' }, { DRIFTLESS_API_TOKEN: TOKEN });
    expect(bad.diagnostics[0]!.summary).toContain('not a url');
    expect(JSON.stringify(bad.diagnostics)).not.toContain(TOKEN);
    expect(resolveApiConfig({}, { DRIFTLESS_API_TOKEN: TOKEN }).diagnostics[0]!.code).toBe('config.api-url-missing');
  });

  it('refuses a token that cannot be sent in a header, as a diagnostic that does not repeat it', () => {
    for (const token of ['tok en_secret_part', 'tok_secret_part\u00e9', 'tok_secret\npart']) {
      const r = resolveApiConfig({ apiUrl: 'https://api.example.com' }, { DRIFTLESS_API_TOKEN: token });
      expect(r.config).toBeUndefined();
      expect(r.diagnostics.map((d) => d.code)).toEqual(['config.token-invalid']);
      expect(JSON.stringify(r.diagnostics)).not.toContain('secret');
    }
  });
});

describe('colourEnabled', () => {
  const io = (isTTY: boolean, env: Record<string, string> = {}): CliIO => ({
    stdout: { write: () => true, isTTY },
    stderr: { write: () => true },
    env,
    cwd: '/',
  });
  it('is on for a terminal only, and off with NO_COLOR or --no-color', () => {
    expect(colourEnabled(io(true), {})).toBe(true);
    expect(colourEnabled(io(false), {})).toBe(false);
    expect(colourEnabled(io(true, { NO_COLOR: '1' }), {})).toBe(false);
    expect(colourEnabled(io(true), { color: false })).toBe(false);
  });
  it('decides as validate does: off for TERM=dumb, on with FORCE_COLOR (plan, drift and apply coloured a dumb terminal)', () => {
    expect(colourEnabled(io(true, { TERM: 'dumb' }), {})).toBe(false);
    expect(colourEnabled(io(false, { FORCE_COLOR: '1' }), {})).toBe(true);
    expect(colourEnabled(io(false, { FORCE_COLOR: '1' }), { color: false })).toBe(false);
    expect(colourEnabled(io(true, { FORCE_COLOR: '1', NO_COLOR: '1' }), {})).toBe(false);
  });
});
