/** `driftless --version` prints the installed package's version, for bug reports and CI logs. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';

function capture(): { io: CliIO; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    io: { stdout: { write: (s: string) => ((out += s), true), isTTY: false }, stderr: { write: (s: string) => ((err += s), true), isTTY: false }, env: {}, cwd: process.cwd() },
    out: () => out,
    err: () => err,
  };
}

describe('driftless --version', () => {
  const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string;
  for (const flag of ['--version', '-V']) {
    it(`${flag} prints the package version and exits 0`, async () => {
      const c = capture();
      expect(await main([flag], c.io)).toBe(0);
      expect(c.out()).toBe(`driftless ${version}\n`);
      expect(c.err()).toBe('');
    });
  }
});
