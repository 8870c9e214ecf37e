/**
 * A global option written before the command (`driftless --no-color plan m`, as people type and as
 * CI wrappers prepend) keeps the command: the command runs with its own arguments and options, and
 * never falls back to help, another command or a usage error. A planted bug (the lazy command
 * loader choosing by argv[0]) lost the command and went unnoticed by the suite.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';

const ROOT = join(import.meta.dirname, '..', '..');

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = { stdout: { write: (s: string) => ((out += s), true) }, stderr: { write: (s: string) => ((err += s), true) }, env: { NO_COLOR: '' }, cwd: ROOT };
  const code = await main(argv, io);
  return { code, out, err };
}

describe('a global option before the command', () => {
  it.each([[['--no-color']], [['--color']], [['--no-color', '--color']]])('%j validate PATH runs validate on PATH', async (globals) => {
    const r = await run([...globals, 'validate', 'examples/minimal']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('Valid manifest (1 file: 1 project, 1 environment, 1 service).');
  });

  it('keeps the command\'s own options and positionals after it', async () => {
    const r = await run(['--no-color', 'validate', 'examples/minimal', '--format', 'json']);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ valid: true });
  });

  it('an invalid manifest is still that command\'s failure (exit 1 with its diagnostics), not help', async () => {
    const r = await run(['--no-color', 'validate', 'no/such/dir']);
    expect(r.code).toBe(1);
    expect(r.out + r.err).not.toMatch(/^Usage|Commands:/m);
    expect(r.out + r.err).toContain('no/such/dir');
  });

  it('an option of the command placed before it is still refused as a usage error naming it', async () => {
    const r = await run(['--no-color', '--frobnicate', 'validate', 'examples/minimal']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('--frobnicate');
  });
});
