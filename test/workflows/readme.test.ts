/**
 * The README's annotated manifest is a real one: it validates, applies on the emulator, and plans
 * clean afterwards. And the README's commands table names every command the CLI has.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { run, startEmu, tempDir } from '../export/helpers.js';

const readme = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');

function manifestExample(): string {
  const section = readme.slice(readme.indexOf('## The manifest'));
  const start = section.indexOf('```yaml\n') + '```yaml\n'.length;
  return section.slice(start, section.indexOf('```', start));
}

describe('README', () => {
  it('the annotated manifest validates, applies, and then plans with no changes', async () => {
    const tmp = tempDir('driftless-readme-');
    const emu = await startEmu();
    try {
      writeFileSync(path.join(tmp.dir, 'driftless.yaml'), manifestExample());
      const env = emu.env({ STRIPE_API_KEY: 'sk_test_readme' });
      expect((await run(['validate'], env, tmp.dir)).code).toBe(0);
      const applied = await run(['apply', '--auto-approve', '--poll-interval', '20'], env, tmp.dir);
      expect(applied.code, applied.stderr + applied.stdout).toBe(0);
      const plan = await run(['plan', '--detailed-exitcode'], env, tmp.dir);
      expect(plan.code, plan.stdout).toBe(0);
    } finally {
      await emu.close();
      tmp.cleanup();
    }
  }, 60_000);

  it('documents every command with its exit codes', () => {
    const table = readme.slice(readme.indexOf('## Commands'), readme.indexOf('### drift'));
    for (const c of commands) expect(table).toContain(`\`driftless ${c.command.split(' ')[0]}`);
  });
});
