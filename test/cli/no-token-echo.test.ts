/**
 * A token pasted in the wrong place of a command line (as a command, a positional argument, a
 * choice, a help topic) is never repeated in the usage error: usage errors reach CI logs.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';

const TOKEN = 'ghp_0123456789abcdefABCDEF0123456789abcdef';

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = { stdout: { write: (s: string) => ((out += s), true), isTTY: false, columns: 100 }, stderr: { write: (s: string) => ((err += s), true), isTTY: false }, env: {}, cwd: '/nonexistent/driftless-token-echo' };
  const code = await main(argv, io);
  return { code, out, err };
}

describe('usage errors never repeat a pasted token', () => {
  for (const argv of [[TOKEN], ['show', 'p.plan', TOKEN], ['validate', '--format', TOKEN], ['help', TOKEN], ['completion', TOKEN], ['plan', '--auth-scheme', TOKEN]]) {
    it(`driftless ${argv.map((a) => (a === TOKEN ? 'TOKEN' : a)).join(' ')}`, async () => {
      const r = await run(argv);
      expect(r.code).toBe(1);
      expect(r.out).toBe('');
      expect(r.err).toContain(`a value of ${TOKEN.length} characters`);
      expect(r.err).not.toContain(TOKEN.slice(8, 30));
    });
  }
});
