/**
 * What users expect of a command line (DESIGN.md contract): `-h` is help, `-v` the version,
 * `driftless help CMD` a command's help, `driftless completion` a shell completion script. All of it
 * goes to the injected stdout, exits 0, and runs nothing.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';

// A directory that does not exist: a command that ran would report it on stderr and exit 1.
const NOWHERE = '/nonexistent/driftless-help-test';

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = { stdout: { write: (s: string) => ((out += s), true), isTTY: false, columns: 100 }, stderr: { write: (s: string) => ((err += s), true), isTTY: false }, env: {}, cwd: NOWHERE };
  const code = await main(argv, io);
  return { code, out, err };
}

const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string;

describe('help', () => {
  for (const argv of [['plan', '-h'], ['plan', '--help'], ['help', 'plan'], ['--no-color', 'help', 'plan'], ['plan', 'm', '--out', 'p.json', '-h']]) {
    it(`\`driftless ${argv.join(' ')}\` prints plan's help and runs nothing`, async () => {
      const r = await run(argv);
      expect(r.code).toBe(0);
      expect(r.err).toBe('');
      expect(r.out.split('\n')[0]).toBe('driftless plan [paths..]');
      for (const flag of ['--out', '--format', '--detailed-exitcode', '--allow-data-loss', '--max-destroy', '--api-url', '--parallelism', '-h, --help', '-v, -V, --version']) expect(r.out).toContain(flag);
      expect(r.out).toContain('[choices: "human", "json", "markdown", "github"]');
      expect(r.out).not.toContain('no such file');
    });
  }

  it('each command has its own help, with its own options', async () => {
    const own: Record<string, string[]> = {
      validate: ['--remote', '--format'],
      apply: ['--auto-approve', '--timeout', '--allow-data-loss', '--max-destroy', '--json'],
      drift: ['--json-file'],
      export: ['--layout', '--project'],
      graph: ['--offline'],
      serve: ['--port', '--fault-rate'],
      demo: ['--deploy-duration'],
    };
    for (const [cmd, flags] of Object.entries(own)) {
      const r = await run(['help', cmd]);
      expect(r.code).toBe(0);
      expect(r.out.split('\n')[0]).toMatch(new RegExp(`^driftless ${cmd}\\b`));
      for (const f of flags) expect(r.out).toContain(f);
    }
  });

  it('`driftless -h`, `driftless help` and `driftless --help` list every command, help and completion', async () => {
    for (const argv of [['-h'], ['help'], ['--help']]) {
      const r = await run(argv);
      expect(r.code).toBe(0);
      expect(r.err).toBe('');
      for (const c of ['validate', 'plan', 'apply', 'drift', 'export', 'graph', 'serve', 'demo', 'completion', 'help [command]']) expect(r.out).toContain(`driftless ${c}`);
    }
  });

  it('`driftless help NOPE` is a usage error with a hint', async () => {
    const r = await run(['help', 'plna']);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain('driftless: help takes one command name');
    expect(r.err).toContain('did you mean plan?');
  });
});

describe('version', () => {
  for (const argv of [['-v'], ['-V'], ['--version'], ['plan', '-v'], ['apply', '--version']]) {
    it(`\`driftless ${argv.join(' ')}\` prints the version and runs nothing`, async () => {
      const r = await run(argv);
      expect(r.code).toBe(0);
      expect(r.out).toBe(`driftless ${version}\n`);
      expect(r.err).toBe('');
    });
  }
});

describe('completion', () => {
  it('`driftless completion` prints a bash completion script for driftless', async () => {
    const r = await run(['completion']);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toContain('###-begin-driftless-completions-###');
    expect(r.out).toContain('complete -o bashdefault -o default -F _driftless_yargs_completions driftless');
    expect(r.out).toContain('--get-yargs-completions');
    expect(r.out.endsWith('\n')).toBe(true);
  });

  it('the script asks driftless for the words: commands, then a command\'s options, then an option\'s choices', async () => {
    const commands = await run(['--get-yargs-completions', '']);
    expect(commands.code).toBe(0);
    expect(commands.out.split('\n')).toEqual(expect.arrayContaining(['validate', 'plan', 'apply', 'drift', 'export', 'graph', 'serve', 'demo']));
    const options = await run(['--get-yargs-completions', 'apply', '--']);
    expect(options.out.split('\n')).toEqual(expect.arrayContaining(['--auto-approve', '--max-destroy', '--timeout']));
    const choices = await run(['--get-yargs-completions', 'plan', '--format', '']);
    expect(choices.out.split('\n').filter(Boolean)).toEqual(['human', 'json', 'markdown', 'github']);
  });

  it('`driftless completion EXTRA` is a usage error', async () => {
    const r = await run(['completion', 'fish']);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain('completion takes no argument, got fish');
  });
});
