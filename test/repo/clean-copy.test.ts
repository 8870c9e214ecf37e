/**
 * How .ci/run proves that the suite needs nothing outside the repository (issue 19): it runs
 * `npm ci`, the README's test command, the chaos and warm suites in a copy of the repository alone
 * in a new temporary directory (scripts/in-clean-copy.sh), and fails when a test was skipped
 * (scripts/no-skipped-tests.mjs). Here: the copy really is alone (no ../shared, no node_modules,
 * no dist/), holds the working tree's files in a Git repository, passes the command's failure on,
 * fails when the command changed a tracked file, and is removed afterwards; the skipped-test check
 * fails on a skipped test; and .ci/run runs the suite that way.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const scratch = mkdtempSync(path.join(tmpdir(), 'driftless-clean-copy-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function inCleanCopy(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await promisify(execFile)('bash', [path.join(ROOT, 'scripts/in-clean-copy.sh'), 'bash', '-c', script], { cwd: ROOT, env: { ...process.env, TMPDIR: scratch }, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e: any) {
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('scripts/in-clean-copy.sh', () => {
  it('runs the command in a copy of the repository with nothing beside it: no ../shared, no node_modules, no dist/', async () => {
    const r = await inCleanCopy(
      'pwd; ls -A ..; test -f package.json && echo has-package-json; test -e node_modules || echo no-node_modules; test -e dist || echo no-dist; git ls-files | grep -c . ; test -f test/repo/clean-copy.test.ts && echo has-this-test',
    );
    expect(r.code, r.stderr).toBe(0);
    const [cwd, ...rest] = r.stdout.trim().split('\n');
    expect(path.dirname(cwd!).startsWith(scratch)).toBe(true);
    // Beside the copy: nothing at all (so no ../shared).
    expect(rest[0]).toBe('driftless');
    expect(rest).toEqual(expect.arrayContaining(['has-package-json', 'no-node_modules', 'no-dist', 'has-this-test']));
    // The copy is a Git repository whose tracked files are the working tree's (tests ask Git for them).
    expect(Number(rest.find((l) => /^\d+$/.test(l)))).toBeGreaterThan(300);
    expect(existsSync(cwd!)).toBe(false); // removed afterwards
  }, 60_000);

  it("fails with the command's exit code", async () => {
    const r = await inCleanCopy('exit 3');
    expect(r.code).toBe(3);
  }, 60_000);

  it('fails when the command changed a tracked file, naming it', async () => {
    const r = await inCleanCopy('echo changed >> README.md');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the tests changed tracked files');
    expect(r.stderr).toContain('README.md');
    // A file the tests create is not a tracked file.
    expect((await inCleanCopy('echo x > new-file.txt')).code).toBe(0);
  }, 60_000);
});

describe('scripts/no-skipped-tests.mjs', () => {
  const check = async (report: unknown) => {
    const file = path.join(scratch, `report-${Math.random().toString(16).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(report));
    try {
      const r = await promisify(execFile)(process.execPath, [path.join(ROOT, 'scripts/no-skipped-tests.mjs'), file]);
      return { code: 0, out: r.stdout + r.stderr };
    } catch (e: any) {
      return { code: e.code as number, out: `${e.stdout}${e.stderr}` };
    }
  };
  const suite = (name: string, ...statuses: string[]) => ({ name, assertionResults: statuses.map((status, i) => ({ status, fullName: `test ${i}` })) });

  it('passes when every test ran, and fails naming each skipped, pending or todo test', async () => {
    expect(await check({ numTotalTests: 3, testResults: [suite('a.test.ts', 'passed', 'passed'), suite('b.test.ts', 'passed')] })).toMatchObject({ code: 0 });
    const r = await check({ numTotalTests: 4, testResults: [suite('a.test.ts', 'passed', 'skipped'), suite('b.test.ts', 'todo', 'pending')] });
    expect(r.code).toBe(1);
    expect(r.out).toContain('3 of 4 tests did not run');
    expect(r.out).toContain('a.test.ts: test 1 (skipped)');
    expect(r.out).toContain('b.test.ts: test 0 (todo)');
    expect((await check({ numTotalTests: 0, testResults: [] })).code).toBe(1);
  });
});

describe('.ci/run', () => {
  const text = readFileSync(path.join(ROOT, '.ci/run'), 'utf8');
  const commands = text.split('\n').filter((l) => !/^\s*#/.test(l)).join('\n');

  it('runs the install, the README test command (no test skipped), the chaos and warm suites inside the clean copy, and nothing outside it', () => {
    const start = commands.indexOf('bash scripts/in-clean-copy.sh bash -c');
    expect(start).toBeGreaterThan(0);
    const inside = commands.slice(start);
    const order = ['npm ci', 'npm test', 'node scripts/no-skipped-tests.mjs', 'npm run test:chaos', 'npm run test:warm'].map((c) => inside.indexOf(c));
    for (const i of order) expect(i).toBeGreaterThan(0);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // Before the copy: only the versions of the tools.
    expect(commands.slice(0, start).match(/\bnpm (ci|test|run)\b/g)).toBeNull();
    // The README's test command is the one run.
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain('npm ci && npm test');
  });
});
