/**
 * A malformed reference is quoted only up to its name: what follows may be the default of a secret
 * (`${env:API-KEY:-sk_live_...}`) or a secret pasted in the wrong place, and the message summary
 * reaches GitHub annotations and the JSON/markdown documents posted as pull-request comments.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { quotedReference } from '../../src/manifest/resolve.js';

const SECRET = 'sk_live_hunter2_reference_quoting';
const dir = mkdtempSync(join(tmpdir(), 'driftless-refquote-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function validate(value: string, format: string): Promise<string> {
  writeFileSync(
    join(dir, 'm.yaml'),
    ['version: 1', 'projects:', '  - name: shop', '    variables:', '      - key: API_KEY', `        value: "${value}"`, '        secret: true', ''].join('\n'),
  );
  let all = '';
  const io: CliIO = { stdout: { write: (s: string) => ((all += s), true), isTTY: false }, stderr: { write: (s: string) => ((all += s), true), isTTY: false }, env: {}, cwd: dir };
  expect(await main(['validate', 'm.yaml', '--format', format], io)).toBe(1);
  return all;
}

describe('malformed references in messages', () => {
  for (const value of [`\${env:API-KEY:-${SECRET}}`, `\${${SECRET}}`, `\${envv:X:-${SECRET}}`, `\${env:X:-${SECRET}`]) {
    for (const format of ['human', 'github', 'json']) {
      it(`${format}: ${value.replace(SECRET, 'SECRET')} is reported without the secret`, async () => {
        const out = await validate(value, format);
        expect(out).toMatch(/not a valid environment variable reference|unknown reference|missing its closing brace/);
        expect(out).not.toContain('hunter2');
      });
    }
  }

  it('shows the scheme and the name up to its first wrong character', () => {
    expect(quotedReference('env:API-KEY:-x')).toBe('`${env:API-…}`');
    expect(quotedReference('envv:NAME')).toBe('`${envv:NAME}`');
    expect(quotedReference('sk_live_abc')).toBe('`${…}`');
    expect(quotedReference('env:X:-y', false)).toBe('`${env:X:…`');
  });
});
