/**
 * The pure parts of "fit for automation": the closing usage line, the CI switch, DRIFTLESS_MAX_WAIT
 * and its precedence, and the next-step hints the renderers leave out in CI.
 */
import { describe, expect, it } from 'vitest';
import { reportUsage, usageLine } from '../../src/cli/api-usage.js';
import { isCI } from '../../src/cli/ci.js';
import { resolveApiConfig } from '../../src/cli/config.js';
import { renderApplyOutcome } from '../../src/cli/apply-view.js';
import { createPalette } from '../../src/render/palette.js';
import type { ApplyResult } from '../../src/apply/apply.js';

describe('usageLine', () => {
  it('the count and what is left of the window', () => {
    expect(usageLine({ requests: 104, limit: 1000, remaining: 896 })).toBe('104 API requests; 896 of 1000 left in this window');
    expect(usageLine({ requests: 1, limit: 10, remaining: 0 })).toBe('1 API request; 0 of 10 left in this window');
  });

  it('only the count when the API sent no rate-limit headers', () => {
    expect(usageLine({ requests: 12 })).toBe('12 API requests');
    expect(usageLine({ requests: 12, limit: 1000 })).toBe('12 API requests');
  });

  it('with a refresh cache: how many of the requests were the refresh', () => {
    expect(usageLine({ requests: 5, limit: 1000, remaining: 995, refresh: { reader: 'refresh', requests: 3 } })).toBe('5 API requests (3 of them the refresh); 995 of 1000 left in this window');
    expect(usageLine({ requests: 1, refresh: { reader: 'refresh', requests: 1 } })).toBe('1 API request (1 of them the refresh)');
  });

  it('a full read says why on the line before, and the usage line stays the last', () => {
    let err = '';
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => ((err += s), true) }, env: {}, cwd: '/' };
    reportUsage(io, { usage: () => ({ requests: 105, limit: 1000, remaining: 895, refresh: { reader: 'full', reason: 'no cache in /c yet', requests: 0 } }) });
    expect(err).toBe('Full read of the live state: no cache in /c yet.\n105 API requests (0 of them the refresh); 895 of 1000 left in this window\n');
  });
});

describe('isCI', () => {
  it('CI=true (and the 1 some runners set) is CI; unset, empty, false and 0 are not', () => {
    expect(isCI({ CI: 'true' })).toBe(true);
    expect(isCI({ CI: 'TRUE' })).toBe(true);
    expect(isCI({ CI: '1' })).toBe(true);
    for (const v of [undefined, '', 'false', '0', ' ']) expect(isCI({ CI: v }), String(v)).toBe(false);
  });
});

describe('DRIFTLESS_MAX_WAIT', () => {
  const env = { DRIFTLESS_API_URL: 'http://127.0.0.1:1', DRIFTLESS_API_TOKEN: 'tok' };

  it('is read as whole seconds; --max-wait wins over it; unset means no cap', () => {
    expect(resolveApiConfig({}, { ...env, DRIFTLESS_MAX_WAIT: '90' }).config?.maxWaitMs).toBe(90_000);
    expect(resolveApiConfig({}, { ...env, DRIFTLESS_MAX_WAIT: '0' }).config?.maxWaitMs).toBe(0);
    expect(resolveApiConfig({ maxWait: 5 }, { ...env, DRIFTLESS_MAX_WAIT: '90' }).config?.maxWaitMs).toBe(5_000);
    expect(resolveApiConfig({}, env).config?.maxWaitMs).toBeUndefined();
  });

  it('anything else is a diagnostic naming the variable, the value and what is allowed', () => {
    for (const bad of ['5m', '-1', '1.5', '86401', 'abc']) {
      const r = resolveApiConfig({}, { ...env, DRIFTLESS_MAX_WAIT: bad });
      expect(r.config, bad).toBeUndefined();
      expect(r.diagnostics.map((d) => d.code)).toEqual(['config.max-wait-invalid']);
      expect(r.diagnostics[0]!.summary).toBe(`DRIFTLESS_MAX_WAIT must be a whole number of seconds from 0 to 86400 (got ${JSON.stringify(bad)}).`);
    }
  });
});

describe('apply outcome hints', () => {
  const interrupted: ApplyResult = {
    status: 'interrupted',
    steps: [{ address: 'project.a', action: 'create', status: 'not_started' }],
    summary: { add: 0, change: 0, destroy: 0, deploy: 0, failed: 0, skipped: 0, not_started: 1 },
    backups: [],
    diagnostics: [],
    requestCount: 0,
  };
  const p = createPalette(false);

  it('an interrupted apply says to run apply again, except in CI', () => {
    expect(renderApplyOutcome(interrupted, p)).toContain('Run `driftless apply` again to finish');
    const ci = renderApplyOutcome(interrupted, p, { hints: false });
    expect(ci).toContain('Apply interrupted: 0 steps failed, 0 skipped, 1 not started.');
    expect(ci).not.toContain('driftless apply');
  });

  it('an apply stopped by the rate-limit cap says why no further step started', () => {
    const stopped: ApplyResult = { ...interrupted, status: 'failed', stoppedBy: 'the API rate limit is spent and the next request would wait 1 h' };
    expect(renderApplyOutcome(stopped, p)).toContain('No further step was started: the API rate limit is spent and the next request would wait 1 h');
  });
});
