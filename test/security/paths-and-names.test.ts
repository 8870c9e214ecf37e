/**
 * Hostile manifests, end to end through the CLI:
 *  - `${file:...}` cannot read outside the manifest's root: `../`, absolute paths, a symlinked file or
 *    directory pointing out; the outside file's content appears nowhere.
 *  - Names with path separators, control characters or template syntax are refused with a located
 *    diagnostic whose text shows them escaped (human, GitHub annotations and JSON).
 *  - Names and values that are legal but hostile to a pull-request comment (HTML, links, images,
 *    @-mentions, code fences, table pipes) come out inert in the markdown plan, escaped in the human
 *    plan, and unchanged in the JSON plan.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../e2e/helpers.js';
import { record } from '../support/reliability.js';

/** Raw control characters a terminal or a PR comment would act on (newline and tab aside). */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const figures = { 'file references tried': 0, 'read outside the root': 0, 'hostile names tried': 0, 'accepted unescaped': 0, 'hostile strings rendered': 0, 'left active in markdown': 0 };

function service(name: string, extra: string[] = []): string {
  return [
    'version: 1',
    'projects:',
    '  - name: sec',
    '    environments:',
    '      - name: dev',
    '        cluster: staging-cluster',
    '        services:',
    '          - type: container',
    `            name: ${JSON.stringify(name)}`,
    '            registry: docker-hub',
    '            image_name: library/nginx',
    '            tag: "1.27"',
    ...extra,
    '',
  ].join('\n');
}

describe('${file:...} stays inside the manifest root', () => {
  it('refuses ../, absolute paths and symlinks out, with a located diagnostic, and never shows the content', async () => {
    const canary = `OUTSIDE-${randomBytes(8).toString('hex')}`;
    const outside = join(h.dir, 'outside.txt');
    writeFileSync(outside, canary);
    mkdirSync(join(h.dir, 'root/files'), { recursive: true });
    writeFileSync(join(h.dir, 'root/files/ok.txt'), 'inside');
    symlinkSync(outside, join(h.dir, 'root/files/link.txt'));
    symlinkSync(h.dir, join(h.dir, 'root/files/up'));
    const refs = ['../outside.txt', 'files/../../outside.txt', outside, 'files/link.txt', 'files/up/outside.txt', '~/outside.txt', 'C:\\outside.txt', 'files/%2e%2e/%2e%2e/outside.txt', 'files/./../../outside.txt'];
    for (const ref of refs) {
      figures['file references tried']++;
      writeFileSync(join(h.dir, 'root/main.yaml'), service('web', ['            variables:', '              - key: CONF', `                value: \${file:${ref}}`, '                mount_path: /etc/conf']));
      for (const format of ['human', 'json', 'github']) {
        const r = await h.run(['validate', 'root', '--format', format]);
        const out = r.stdout + r.stderr;
        expect(r.code, `${ref}: ${out}`).toBe(1);
        expect(out, ref).toContain('main.yaml');
        if (format !== 'json') expect(out, ref).toMatch(/main\.yaml:1[0-9]|main\.yaml,line=1[0-9]/); // file:line of the reference
        if (out.includes(canary)) figures['read outside the root']++;
        expect(out, ref).not.toContain(canary);
      }
    }
    // The same reference inside the root is fine.
    writeFileSync(join(h.dir, 'root/main.yaml'), service('web', ['            variables:', '              - key: CONF', '                value: ${file:files/ok.txt}', '                mount_path: /etc/conf']));
    const ok = await h.run(['validate', 'root']);
    expect(ok.code, ok.stderr).toBe(0);
  });
});

describe('hostile names', () => {
  const refused = ['a/b', 'a\\b', '../../etc', 'x\u0000y', '\u001b[31mred\u001b[0m', 'evil\u202egnp.exe', 'a\u2028b', 'a\nb', '${env:HOME}', '{{ .Values.x }}', 'zero\u200bwidth', ' lead', 'trail '];
  it('names with path separators, control characters or template syntax are refused, and shown escaped', async () => {
    for (const name of refused) {
      figures['hostile names tried']++;
      writeFileSync(join(h.dir, 'names/main.yaml'.replace('names/', '')), '');
      mkdirSync(join(h.dir, 'names'), { recursive: true });
      writeFileSync(join(h.dir, 'names/main.yaml'), service(name));
      for (const format of ['human', 'github', 'json']) {
        const r = await h.run(['validate', 'names', '--format', format]);
        const out = r.stdout + r.stderr;
        expect(r.code, `${JSON.stringify(name)} (${format}): ${out}`).toBe(1);
        if (RAW_CONTROL.test(out)) figures['accepted unescaped']++;
        expect(out, JSON.stringify(name)).not.toMatch(RAW_CONTROL);
        if (format === 'json') expect(() => JSON.parse(r.stdout)).not.toThrow();
      }
    }
  });

  it('legal but hostile strings are inert in the markdown plan, escaped in the human plan, intact in the JSON plan', async () => {
    const evil = {
      name: '<img src=x onerror=alert(1)> [x](javascript:alert(1)) @everyone',
      description: '</details><script>alert(1)</script> [click](https://evil.example/d) ![p](https://evil.example/p.png) @everyone #1 | a | b |\n```\n# heading\n<!-- c -->',
      value: '``` </details> <a href="https://evil.example/v">v</a> @octocat',
    };
    mkdirSync(join(h.dir, 'md'), { recursive: true });
    writeFileSync(
      join(h.dir, 'md/main.yaml'),
      [
        'version: 1',
        'projects:',
        `  - name: ${JSON.stringify(evil.name)}`,
        `    description: ${JSON.stringify(evil.description)}`,
        '    variables:',
        '      - key: EVIL',
        `        value: ${JSON.stringify(evil.value)}`,
        '    environments:',
        '      - name: dev',
        '        cluster: staging-cluster',
        '        services:',
        '          - type: container',
        "            name: web",
        '            registry: docker-hub',
        '            image_name: library/nginx',
        '            tag: "1.27"',
        '',
      ].join('\n'),
    );
    figures['hostile strings rendered'] = Object.keys(evil).length;
    const md = await h.run(['plan', 'md', '--format', 'markdown']);
    expect(md.code, md.stderr).toBe(0);
    // The payload is shown (as text), not dropped...
    expect(md.stdout).toMatch(/img src/);
    expect(md.stdout).toMatch(/onerror/);
    expect(md.stdout).toMatch(/evil\.example/);
    // ...and outside code blocks and code spans, nothing of it is live markup.
    const prose = stripCode(md.stdout);
    const active = [/<img/i, /<script/i, /<a\s/i, /\]\((https|javascript):/, /@everyone/, /@octocat/, /<!--/].filter((re) => re.test(prose));
    figures['left active in markdown'] = active.length;
    expect(active.map(String)).toEqual([]);
    // The renderer's own <details> blocks are balanced: the payload closed none of them.
    expect((prose.match(/<details>/g) ?? []).length).toBe((prose.match(/<\/details>/g) ?? []).length);
    // Code fences are balanced too: a payload's ``` did not end one early.
    const fences = md.stdout.split('\n').filter((l) => /^`{3,}/.test(l)).length;
    expect(fences % 2).toBe(0);

    const human = await h.run(['plan', 'md']);
    expect(human.code).toBe(0);
    expect(human.stdout).not.toMatch(RAW_CONTROL);

    const json = await h.run(['plan', 'md', '--format', 'json']);
    const doc = JSON.parse(json.stdout) as { resource_changes: Array<{ change: { after?: Record<string, unknown> } }> };
    const afters = JSON.stringify(doc.resource_changes.map((c) => c.change.after));
    expect(afters).toContain(JSON.stringify(evil.name).slice(1, -1));
    expect(afters).toContain(JSON.stringify(evil.description).slice(1, -1));

    record('paths-and-names', {
      title: '`${file:...}` references out of the manifest root (`../`, absolute, `~`, drive letters, a symlinked file, a symlinked directory) are refused with a located diagnostic in every validate format, the outside content never shown; names with path separators, control characters, bidi overrides or template syntax are refused and shown escaped; HTML, links, images, mentions and code fences in names, descriptions and values are inert in the markdown plan',
      file: 'test/security/paths-and-names.test.ts',
      command: 'npm test',
      figures,
    });
  });
});

/** Markdown with fenced blocks and inline code spans removed (what GitHub would interpret as markup). */
function stripCode(md: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of md.split('\n')) {
    const m = /^(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && m[1]!.startsWith(fence) && line.trim() === m[1]) fence = undefined;
      continue;
    }
    if (m) {
      fence = m[1];
      continue;
    }
    out.push(line.replace(/(`+)(?:(?!\1).)+?\1/g, ''));
  }
  return out.join('\n');
}
