/**
 * `driftless graph` end to end: the realistic example's plan graph against the emulator (every
 * node to be created), as Mermaid and DOT; `--offline` draws the manifest without the API.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startEmu, type Emu } from '../export/helpers.js';

const example = path.resolve(__dirname, '../../examples/realistic');
const secrets = { SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/graph', WEBHOOK_SIGNING_SECRET: 'sig', STRIPE_API_KEY: 'sk_test_graph', SESSION_SECRET: 'sess' };
let emu: Emu;

beforeAll(async () => {
  emu = await startEmu();
});
afterAll(async () => {
  await emu.close();
});

describe('driftless graph', () => {
  it('draws the plan as Mermaid: environments, stages in order, services, planned actions', async () => {
    const r = await run(['graph', example, '--format', 'mermaid'], emu.env(secrets));
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out.startsWith('flowchart LR\n')).toBe(true);
    expect(out).toMatch(/subgraph env\d+\["shop \/ production"\]/);
    expect(out).toContain('-->|then|');
    expect(out).toMatch(/create/);
    expect(out).not.toContain('sk_test_graph');
  });

  it('draws DOT, and --offline draws the manifest without calling the API', async () => {
    const dot = await run(['graph', example, '--format', 'dot'], emu.env(secrets));
    expect(dot.code, dot.stderr).toBe(0);
    expect(dot.stdout.startsWith('digraph driftless {')).toBe(true);
    expect(dot.stdout).toContain('subgraph cluster_');
    const offline = await run(['graph', example, '--offline'], { NO_COLOR: '1', ...secrets });
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stdout.startsWith('digraph driftless {')).toBe(true);
    expect(offline.stdout).not.toMatch(/create|update/);
  });

  it('exits 1 with a clear message for a path that does not exist', async () => {
    const r = await run(['graph', 'no-such-dir', '--offline'], { NO_COLOR: '1' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no such file or directory');
  });
});
