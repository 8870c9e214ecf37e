import { describe, expect, it } from 'vitest';
import { createApplyView, renderApplyEventJson, renderApplyEventLine } from '../../src/cli/apply-view.js';
import { parseDuration } from '../../src/cli/commands/apply.js';
import { createPalette } from '../../src/render/palette.js';

const plain = createPalette(false);
const API = 'project.p/environment.e/application.api';

describe('apply view', () => {
  it('on a terminal, keeps one redrawn line per deploying service with its state and elapsed time', () => {
    let out = '';
    const view = createApplyView({ json: false, live: true, palette: plain, write: (s) => (out += s) });
    view.onEvent({ type: 'apply_start', address: API, action: 'deploy' });
    view.onEvent({ type: 'apply_progress', address: API, action: 'deploy', state: 'BUILDING', elapsed_seconds: 3 });
    expect(out).toMatch(/project\.p\/environment\.e\/application\.api {2}BUILDING {2}\d+s\n {2}1 deploying, \d+s elapsed\n$/);
    // the block is erased (cursor up, clear) before it is drawn again
    expect(out).toContain('\x1b[2A\x1b[J');
    view.onEvent({ type: 'apply_complete', address: API, action: 'deploy', elapsed_seconds: 9 });
    view.close();
    expect(out.endsWith(`${API}: Deployed after 9s\n`)).toBe(true);
  });

  it('without a terminal, writes one line per state change', () => {
    let out = '';
    const view = createApplyView({ json: false, live: false, palette: plain, write: (s) => (out += s) });
    view.onEvent({ type: 'apply_progress', address: API, action: 'deploy', state: 'DEPLOYING', elapsed_seconds: 4 });
    view.onEvent({ type: 'rate_limited', wait_seconds: 12 });
    expect(out).toBe(`${API}: DEPLOYING [4s elapsed]\nAPI rate limit reached: waiting 12s before the next request\n`);
  });

  it('escapes control characters in names and errors, in every mode', () => {
    const evil = 'project.p\x1b[2J/environment.e';
    expect(renderApplyEventLine({ type: 'apply_errored', address: evil, action: 'create', error: 'bad\x07', elapsed_seconds: 0 }, plain)).toBe(
      'project.p\\x1b[2J/environment.e: Creation failed after 0s: bad\\x07',
    );
    const json = renderApplyEventJson({ type: 'apply_start', address: 'a\u202eb', action: 'create' }, new Date(0));
    expect(json).not.toContain('\u202e');
    expect(JSON.parse(json)).toMatchObject({ '@timestamp': '1970-01-01T00:00:00.000Z', type: 'apply_start', address: 'a\u202eb' });
  });
});

describe('parseDuration', () => {
  it('reads seconds, units and combinations, and rejects the rest', () => {
    expect(parseDuration('90')).toBe(90_000);
    expect(parseDuration('30m')).toBe(1_800_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('soon')).toBeUndefined();
    expect(parseDuration('10x')).toBeUndefined();
  });
});
