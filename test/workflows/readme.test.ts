/**
 * The annotated manifest of docs/manifest.md is a real one: it validates, applies on the emulator,
 * and plans clean afterwards; the README's tour manifest validates. And the command table
 * (docs/commands.md) names every command the CLI has.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { run, startEmu, tempDir } from '../export/helpers.js';

const readme = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');
const manifestPage = readFileSync(path.resolve(__dirname, '../../docs/manifest.md'), 'utf8');
const commandsPage = readFileSync(path.resolve(__dirname, '../../docs/commands.md'), 'utf8');

/** The first YAML block after `heading` in `text`. */
function yamlAfter(text: string, heading: string): string {
  expect(text).toContain(heading);
  const section = text.slice(text.indexOf(heading));
  const start = section.indexOf('```yaml\n') + '```yaml\n'.length;
  return section.slice(start, section.indexOf('```', start));
}
const manifestExample = () => yamlAfter(manifestPage, '## An annotated manifest');

describe('the documented manifests and commands', () => {
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

  it("the README tour's manifest validates (with its secret set)", async () => {
    const tmp = tempDir('driftless-readme-tour-');
    try {
      writeFileSync(path.join(tmp.dir, 'driftless.yaml'), yamlAfter(readme, '## A five-minute tour'));
      const r = await run(['validate'], { SESSION_SECRET: 'tour-secret' }, tmp.dir);
      expect(r.code, r.stderr + r.stdout).toBe(0);
      expect(r.stderr + r.stdout).not.toMatch(/warning/);
    } finally {
      tmp.cleanup();
    }
  });

  it('documents every command with its exit codes', () => {
    const table = commandsPage.slice(commandsPage.indexOf('| command | what it does | exit codes |'), commandsPage.indexOf('`[API options]`'));
    for (const c of commands) expect(table).toMatch(new RegExp(`\\| \`driftless ${c.command.split(' ')[0]}[^\\n]*\\| [^\\n]*\\d[^\\n]*\\|$`, 'm'));
  });
});
