/**
 * The demo's "console" edits are made as the console user: the emulator's CONSOLE token, so the
 * organization's audit log says a person changed them in the console, not driftless's token.
 */
import { describe, expect, it } from 'vitest';
import { runDemo } from '../../src/demo/run-demo.js';
import { startDemoEmulator } from '../../src/demo/emulator.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { main } from '../../src/cli/main.js';
import { exampleDirectory } from '../../src/cli/commands/demo.js';

describe('the demo console', () => {
  it("edits as ops-oncall@example.com from the console, while driftless's own writes are the API token's", async () => {
    let em!: RunningEmulator;
    let out = '';
    const result = await runDemo({
      examplePath: exampleDirectory()!,
      ciExamplesPath: 'examples/github-actions/',
      baseEnv: { NO_COLOR: '1' },
      say: (t) => (out += t),
      runCommand: (argv, env) => main(argv, { stdout: { write: (s: string) => ((out += s), true) }, stderr: { write: (s: string) => ((out += s), true) }, env, cwd: process.cwd() } as any),
      startEmulator: () => startDemoEmulator(40, (started) => (em = started)),
    });
    expect(result.drift, out).toBe(2);
    const events = Object.values(em.state.auditEvents);
    const consoleEdits = events.filter((e) => e.origin === 'CONSOLE');
    expect(consoleEdits.map((e) => [e.event_type, e.target_type, e.target_name, e.sub_target_type ?? null]).sort()).toEqual([
      ['UPDATE', 'APPLICATION', 'api', null],
      ['UPDATE', 'PROJECT', 'shop', 'VARIABLE'],
    ]);
    for (const e of consoleEdits) expect(e.triggered_by).toBe('ops-oncall@example.com');
    // Everything else (the apply) came through the API with driftless's token.
    const rest = events.filter((e) => e.origin !== 'CONSOLE');
    expect(rest.length).toBeGreaterThan(10);
    expect(new Set(rest.map((e) => `${e.origin} ${e.triggered_by}`))).toEqual(new Set(['API admin token']));
  }, 120_000);
});
