/**
 * The parts `apply` is composed of (src/cli/apply-input.ts, apply-gates.ts, apply-json.ts): the
 * saved-plan policy before any request, the gates before the first write, and apply's own lines
 * of the --json stream. The end-to-end behaviour is in test/e2e/apply.test.ts and saved-plan.test.ts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { applyInputOf } from '../../src/cli/apply-input.js';
import { approval, rateLimitRefusal } from '../../src/cli/apply-gates.js';
import { plannedChangeLines } from '../../src/cli/apply-json.js';
import type { CliIO } from '../../src/cli/io.js';
import type { Plan, ResourceChange } from '../../src/plan/types.js';
import { RateLimitWaitError } from '../../src/api/index.js';

const plain = { bold: (s: string) => s, green: (s: string) => s, yellow: (s: string) => s } as never;
const authority = { allowDataLoss: false, allowReplace: false };

function io(opts: { tty: boolean; answer?: string }): CliIO & { out: string } {
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  stdin.isTTY = opts.tty;
  if (opts.answer !== undefined) stdin.end(`${opts.answer}\n`);
  const o = { out: '', stdout: { isTTY: opts.tty, write: (s: string) => (o.out += s) }, stderr: { write: () => true }, stdin, env: {}, cwd: '/' };
  return o as CliIO & { out: string };
}

describe('apply input: the saved-plan policy, before any request', () => {
  const dir = mkdtempSync(join(tmpdir(), 'driftless-apply-input-'));
  const planFile = (name: string) => {
    const p = join(dir, name);
    writeFileSync(p, JSON.stringify({ kind: 'driftless-plan', plan: {} }));
    return p;
  };

  it('manifest paths and targets pass through when no plan file is given', async () => {
    expect(await applyInputOf(['infra/'], ['project.a'], authority, { cwd: dir, env: {} })).toEqual({ manifestPaths: ['infra/'], targets: ['project.a'] });
  });

  it('refuses two plan files', async () => {
    const r = await applyInputOf([planFile('a.json'), planFile('b.json')], undefined, authority, { cwd: dir, env: {} });
    expect('refused' in r && r.refused.map((d) => d.code)).toEqual(['apply.several-plans']);
  });
});

describe('the gates before the first write', () => {
  it('a saved plan or --auto-approve is approved without asking', async () => {
    expect(await approval(io({ tty: false }), { json: false, autoApprove: true, savedPlan: false, palette: plain })).toEqual({ approved: true });
    expect(await approval(io({ tty: false }), { json: false, autoApprove: false, savedPlan: true, palette: plain })).toEqual({ approved: true });
  });

  it('without a terminal, or with --json, it is refused with what to do', async () => {
    for (const [tty, json] of [[false, false], [true, true]] as const) {
      const r = await approval(io({ tty }), { json, autoApprove: false, savedPlan: false, palette: plain });
      expect(r).toMatchObject({ approved: false, refused: { code: 'apply.needs-approval' } });
    }
  });

  it('on a terminal only `yes` approves', async () => {
    expect(await approval(io({ tty: true, answer: 'yes' }), { json: false, autoApprove: false, savedPlan: false, palette: plain })).toEqual({ approved: true });
    const no = io({ tty: true, answer: 'y' });
    expect(await approval(no, { json: false, autoApprove: false, savedPlan: false, palette: plain })).toEqual({ approved: false, cancelled: true });
    expect(no.out).toContain("Only 'yes' will be accepted");
  });

  it('a first write that would wait beyond --max-wait is refused', () => {
    expect(rateLimitRefusal(undefined)).toBeUndefined();
    const e = new RateLimitWaitError('PUT', '/project/{id}', { waitMs: 120_000, maxWaitMs: 60_000, resetAt: 120_000, limit: 100, remaining: 0 } as never, 0, 'UTC');
    expect(rateLimitRefusal(e)).toMatchObject({ code: 'apply.rate-limit-wait', summary: `apply refused before its first write: ${e.message}` });
  });
});

describe("apply's --json lines", () => {
  it('one planned_change per change apply makes (a deploy included), then the plan summary', () => {
    const change = (address: string, actions: ResourceChange['actions'], extra: Partial<ResourceChange> = {}) => ({ address, kind: 'project', name: 'x', actions, status: 'planned', reasons: [], fields: [], ...extra }) as ResourceChange;
    const plan = { changes: [change('project.a', ['create']), change('project.b', ['no-op']), change('project.c', ['no-op'], { deploy: { reasons: ['x'] } } as never), change('project.d', ['update'], { previous_address: 'project.old' })], summary: { add: 1, change: 1, destroy: 0, deploy: 1 } } as unknown as Plan;
    const lines = plannedChangeLines(plan).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.type, l.address, l.action, l['@message']])).toEqual([
      ['planned_change', 'project.a', 'create', 'project.a: plan to create'],
      ['planned_change', 'project.c', 'deploy', 'project.c: plan to deploy'],
      ['planned_change', 'project.d', 'update', 'project.d: plan to update (renamed from project.old)'],
      ['change_summary', undefined, undefined, 'Plan summary'],
    ]);
  });
});
