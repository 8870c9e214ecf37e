/**
 * `plan --format markdown --split-dir DIR` and `drift --format markdown --split-dir DIR` end to end
 * against the emulator (issue 12, "pull-request comments that hold any plan"): a manifest of 300
 * services gives several parts, each well-formed and under GitHub's comment limit, every address
 * in exactly one; part files a previous, longer run left are removed (and nothing else); a usage
 * error for --split-dir without markdown runs nothing.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';
import { codeTexts, markdownProblems, tableCells } from '../support/markdown-check.js';
import { countRequests } from '../safety/usage-support.js';

function manifest(environments: number, services: number): string {
  const envs = Array.from({ length: environments }, (_, e) => {
    const svcs = Array.from(
      { length: services },
      (_, i) => `          - type: container
            name: svc-${i}
            registry: docker-hub
            image_name: acme/svc-${i}
            tag: "1.${i}"
            description: "${'a service of the split test '.repeat(3)}"`,
    ).join('\n');
    return `      - name: env-${e}
        cluster: production-cluster
        mode: DEVELOPMENT
        services:${services === 0 ? ' []' : `\n${svcs}`}`;
  });
  return `version: 1
projects:
  - name: split
    environments:
${envs.join('\n')}
`;
}

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  h.write({ 'big/driftless.yaml': manifest(3, 100), 'small/driftless.yaml': manifest(1, 3) });
}, 60_000);
afterAll(async () => h.close());

const partsIn = (dir: string) =>
  readdirSync(join(h.dir, dir))
    .filter((f) => /^part-\d+\.md$/.test(f))
    .sort((a, b) => Number(a.slice(5, -3)) - Number(b.slice(5, -3)))
    .map((f) => readFileSync(join(h.dir, dir, f), 'utf8'));

describe('plan --format markdown --split-dir on 300 services', () => {
  it('writes part-1.md ... part-N.md, each well-formed and under 65,536 characters, every address in exactly one', async () => {
    // What a previous, longer plan left behind, and a file that is not a part.
    mkdirSync(join(h.dir, 'comments'), { recursive: true });
    for (const f of ['part-40.md', 'part-41.md', 'notes.md']) writeFileSync(join(h.dir, 'comments', f), 'old\n');

    const r = await h.run(['plan', 'big', '--format', 'markdown', '--split-dir', 'comments']);
    expect(r.code, r.stderr).toBe(0);
    const parts = partsIn('comments');
    expect(parts.length).toBeGreaterThan(1);
    expect(r.stderr).toContain(`Wrote the plan in ${parts.length} markdown parts: comments/part-1.md ... part-${parts.length}.md`);
    expect(existsSync(join(h.dir, 'comments', 'part-40.md'))).toBe(false);
    expect(existsSync(join(h.dir, 'comments', 'part-41.md'))).toBe(false);
    expect(readFileSync(join(h.dir, 'comments', 'notes.md'), 'utf8')).toBe('old\n');

    for (const [i, p] of parts.entries()) {
      expect(p.length).toBeLessThan(65_536);
      expect(markdownProblems(p), `part ${i + 1}`).toEqual([]);
      expect(p.split('\n')[0]).toBe(`### driftless plan (part ${i + 1} of ${parts.length})`);
    }
    expect(parts[0]).toMatch(/^\*\*Plan: 304 to add, 0 to change, 0 to destroy, 300 to deploy\.\*\*/m);

    // The addresses of the plan, as the JSON plan lists them: each in exactly one part.
    const json = await h.run(['plan', 'big', '--format', 'json']);
    const addresses: string[] = JSON.parse(json.stdout).resource_changes.map((c: { address: string }) => c.address);
    expect(addresses.filter((a) => a.includes('/container.'))).toHaveLength(300);
    const shown = parts.map((p) => new Set(codeTexts(p)));
    for (const a of addresses) expect(shown.filter((s) => s.has(a)), a).toHaveLength(1);

    // stdout holds the whole plan in one well-formed document.
    expect(markdownProblems(r.stdout)).toEqual([]);
    const whole = new Set(codeTexts(r.stdout));
    expect(addresses.filter((a) => !whole.has(a))).toEqual([]);
  });

  it('show PLANFILE --split-dir writes the very parts the plan run wrote', async () => {
    const planned = await h.run(['plan', 'big', '--format', 'markdown', '--split-dir', 'planned', '--out', 'big.plan']);
    expect(planned.code, planned.stderr).toBe(0);
    const shown = await h.run(['show', 'big.plan', '--format', 'markdown', '--split-dir', 'shown']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toBe(planned.stdout);
    expect(partsIn('shown')).toEqual(partsIn('planned'));
    expect(partsIn('shown').length).toBeGreaterThan(1);
    const usage = await h.run(['show', 'big.plan', '--split-dir', 'shown']);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('--split-dir writes markdown parts: it needs --format markdown, got --format human');
  });

  it('a shorter plan into the same directory leaves only its own part', async () => {
    const r = await h.run(['plan', 'small', '--format', 'markdown', '--split-dir', 'comments']);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(join(h.dir, 'comments')).sort()).toEqual(['notes.md', 'part-1.md']);
    const [only] = partsIn('comments');
    expect(only!.split('\n')[0]).toBe('### driftless plan (part 1 of 1)');
    expect(only).toContain('**Plan: 5 to add');
  });

  it('a plan that fails leaves its failure as the only part: the comments can never show an older plan as this one', async () => {
    expect(partsIn('comments')).toHaveLength(1);
    writeFileSync(join(h.dir, 'comments', 'part-2.md'), 'old\n');
    h.write({ 'broken/driftless.yaml': 'version: 1\nprojects:\n  - name: split\n    environments: [{ name: e, cluster: production-cluster, mode: NOT_A_MODE }]\n' });
    const r = await h.run(['plan', 'broken', '--format', 'markdown', '--split-dir', 'comments']);
    expect(r.code).toBe(1);
    expect(readdirSync(join(h.dir, 'comments')).sort()).toEqual(['notes.md', 'part-1.md']);
    const [failure] = partsIn('comments');
    expect(failure).toBe(r.stdout);
    expect(failure).toContain('driftless plan failed');
    expect(failure).not.toContain('**Plan:');
    expect(markdownProblems(failure!)).toEqual([]);
  });

  it('never follows a symlink (a part file or the directory) and removes only part-N.md files', async () => {
    writeFileSync(join(h.dir, 'precious.txt'), 'keep me\n');
    mkdirSync(join(h.dir, 'linked-part'), { recursive: true });
    symlinkSync(join(h.dir, 'precious.txt'), join(h.dir, 'linked-part', 'part-1.md'));
    const viaFile = await h.run(['plan', 'small', '--format', 'markdown', '--split-dir', 'linked-part']);
    expect(viaFile.code).toBe(1);
    expect(viaFile.stderr).toContain('linked-part/part-1.md is a symbolic link');
    expect(readFileSync(join(h.dir, 'precious.txt'), 'utf8')).toBe('keep me\n');

    mkdirSync(join(h.dir, 'real-dir'), { recursive: true });
    writeFileSync(join(h.dir, 'real-dir', 'part-7.md'), 'not this run\n');
    symlinkSync(join(h.dir, 'real-dir'), join(h.dir, 'linked-dir'));
    const viaDir = await h.run(['plan', 'small', '--format', 'markdown', '--split-dir', 'linked-dir']);
    expect(viaDir.code).toBe(1);
    expect(viaDir.stderr).toContain('linked-dir is a symbolic link');
    expect(readdirSync(join(h.dir, 'real-dir'))).toEqual(['part-7.md']);

    mkdirSync(join(h.dir, 'notes'), { recursive: true });
    for (const f of ['part-time-notes.md', 'part-2.md']) writeFileSync(join(h.dir, 'notes', f), 'old\n');
    const ok = await h.run(['plan', 'small', '--format', 'markdown', '--split-dir', 'notes']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(readdirSync(join(h.dir, 'notes')).sort()).toEqual(['part-1.md', 'part-time-notes.md']);
  });

  it('--split-dir without --format markdown is a usage error: nothing runs, nothing is written', async () => {
    const requests = countRequests(h);
    for (const argv of [
      ['plan', 'big', '--split-dir', 'elsewhere'],
      ['plan', 'big', '--json', '--split-dir', 'elsewhere'],
      ['drift', 'big', '--format', 'json', '--split-dir', 'elsewhere'],
    ]) {
      const r = await h.run(argv);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/--split-dir writes markdown parts: it needs --format markdown, got (--json|--format (human|json))/);
    }
    expect(existsSync(join(h.dir, 'elsewhere'))).toBe(false);
    expect(requests()).toBe(0);
  });
});

describe('drift --format markdown --split-dir on 300 services', () => {
  it('the issue body (part 1, with the fingerprint marker) and one part per further comment, every drifted resource in one', async () => {
    // The project and its environments exist live; Git declares 300 services they do not have.
    h.write({ 'base/driftless.yaml': manifest(3, 0) });
    const applied = await h.run(['apply', 'base', '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    const r = await h.run(['drift', 'big', '--format', 'markdown', '--split-dir', 'drift-parts', '--json-file', 'drift.json']);
    expect(r.code, r.stderr).toBe(2);
    const parts = partsIn('drift-parts');
    expect(parts.length).toBeGreaterThan(1);
    const report = JSON.parse(readFileSync(join(h.dir, 'drift.json'), 'utf8'));
    expect(report.items.filter((i: { address: string }) => i.address.includes('/container.'))).toHaveLength(300);
    expect(parts[0]!.split('\n')[0]).toBe(`<!-- driftless-drift fingerprint=${report.fingerprint} -->`);
    for (const [i, p] of parts.entries()) {
      expect(p.length).toBeLessThan(65_536);
      expect(markdownProblems(p), `part ${i + 1}`).toEqual([]);
      expect(p).toContain(`(part ${i + 1} of ${parts.length})`);
    }
    const rows = parts.map((p) => new Set(tableCells(p)));
    for (const item of report.items as Array<{ address: string }>) expect(rows.filter((s) => s.has(item.address)), item.address).toHaveLength(1);
  });
});
