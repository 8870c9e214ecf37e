/**
 * Finding 11: a symlinked `*.yaml` in the manifest directory leaked files outside it
 * (`ln -s /etc/passwd m/evil.yaml; driftless validate m` printed `root:x:0:0:...` in the error
 * excerpt). Manifest discovery now follows the rules of `${file:...}`: a link whose real path leaves
 * the manifest directory is refused with an error naming the link, and the file behind it is never
 * read, by every command that reads a manifest.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../e2e/helpers.js';

let h: Harness;
const canary = `hunter2-${randomBytes(8).toString('hex')}`;

const MANIFEST = [
  'version: 1',
  'projects:',
  '  - name: confined',
  '    environments:',
  '      - name: dev',
  '        cluster: staging-cluster',
  '        services:',
  '          - type: container',
  '            name: web',
  '            registry: docker-hub',
  '            image_name: library/nginx',
  '            tag: "1.27"',
  '',
].join('\n');

beforeAll(async () => {
  h = await startHarness();
  // Outside the manifest directory: a credentials file in two shapes (a shell line, which YAML
  // reads as one string, and a YAML mapping, which the schema would reject key by key).
  mkdirSync(join(h.dir, 'outside'), { recursive: true });
  writeFileSync(join(h.dir, 'outside/credentials'), `root:x:0:0:root:/root:/bin/bash\nAWS_SECRET_ACCESS_KEY=${canary}\n`);
  writeFileSync(join(h.dir, 'outside/creds.yaml'), `aws_secret_access_key: ${canary}\n`);
  h.write({ 'm/shop.yaml': MANIFEST });
  symlinkSync(join(h.dir, 'outside/credentials'), join(h.dir, 'm/evil.yaml'));
  symlinkSync(join(h.dir, 'outside/creds.yaml'), join(h.dir, 'm/creds.yaml'));
  // A directory link with a manifest's name, and a link that stays inside but names a non-YAML file.
  symlinkSync(join(h.dir, 'outside'), join(h.dir, 'm/dir.yaml'));
  writeFileSync(join(h.dir, 'm/notes.txt'), `token ${canary}\n`);
  symlinkSync(join(h.dir, 'm/notes.txt'), join(h.dir, 'm/notes.yaml'));
});
afterAll(async () => {
  await h?.close();
});

describe('finding 11: manifest discovery is confined to the manifest directory', () => {
  const commands: Array<[string, string[]]> = [
    ['validate', ['validate', 'm']],
    ['validate --format json', ['validate', 'm', '--format', 'json']],
    ['validate --format github', ['validate', 'm', '--format', 'github']],
    ['plan', ['plan', 'm']],
    ['apply', ['apply', 'm', '--auto-approve']],
    ['drift', ['drift', 'm']],
    ['graph', ['graph', 'm']],
  ];

  it.each(commands)('finding 11: %s refuses the links out, naming them, and never shows what they point at', async (_label, argv) => {
    const r = await h.run(argv);
    const out = r.stdout + r.stderr;
    expect(r.code).toBe(1);
    expect(out).not.toContain(canary);
    expect(out).not.toContain('root:x:0:0');
    expect(out).not.toContain('aws_secret_access_key');
    for (const link of ['m/evil.yaml', 'm/creds.yaml', 'm/dir.yaml']) expect(out).toContain(link);
    expect(out).toContain('m/notes.yaml');
  });

  it('finding 11: nothing was created in the organization by the refused apply', async () => {
    const r = await h.run(['apply', 'm', '--auto-approve']);
    expect(r.code).toBe(1);
    const projects = await fetch(`${h.emu.url}/organization/${h.emu.organizationId}/project`, { headers: { Authorization: `Token ${h.emu.tokens.ADMIN}` } });
    const body = (await projects.json()) as { results: Array<{ name: string }> };
    expect(body.results.map((p) => p.name)).not.toContain('confined');
  });

  it('finding 11: the refusal says what is wrong and what to do, and the manifest inside still validates alone', async () => {
    const r = await h.run(['validate', 'm']);
    expect(r.stderr + r.stdout).toMatch(/m\/evil\.yaml is a symbolic link that leads outside the manifest directory/);
    expect(r.stderr + r.stdout).toMatch(/m\/notes\.yaml is a symbolic link to a file that is not a \*\.yaml or \*\.yml file/);
    const ok = await h.run(['validate', 'm/shop.yaml']);
    expect(ok.code).toBe(0);
  });

  it('finding 11: a file that is not YAML, named on the command line, is not read', async () => {
    const r = await h.run(['validate', 'outside/credentials']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toContain(canary);
    expect(r.stdout + r.stderr).not.toContain('root:x:0:0');
    expect(r.stdout + r.stderr).toContain('is not a *.yaml or *.yml file');
  });
});
