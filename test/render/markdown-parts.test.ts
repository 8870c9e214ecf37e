/**
 * Pull-request comments that hold any plan (issue 12): plans of 10, 1,000 and 10,000 changes,
 * built directly as Plan values (every kind of change: blocked, destroyed, replaced, updated,
 * deployed, created, left untouched), rendered as markdown parts. Every part is read back with a
 * CommonMark/GFM parser: under GitHub's 65,536 characters, every fence, `<details>` and table
 * closed, headed "part i of N"; every resource address in exactly one part; the summary in part 1;
 * blocked and destructive changes before updates, updates before creates. Plus the plan of the
 * issue (1,192 creates) through the pure core, and drift reports of the same sizes.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { computePlan } from '../../src/plan/compute.js';
import type { Manifest } from '../../src/manifest/types.js';
import type { DeployGroup, Plan, ResourceChange } from '../../src/plan/types.js';
import { MERMAID_MAX_TEXT_SIZE, renderPlanMarkdown, renderPlanMarkdownParts } from '../../src/render/markdown.js';
import { renderDeployMermaid } from '../../src/render/graph.js';
import { packMarkdown, textBlock } from '../../src/render/markdown-parts.js';
import { summaryLine } from '../../src/render/describe.js';
import { driftFingerprint, type DriftItem, type DriftReport } from '../../src/drift/detect.js';
import { fingerprintMarker, renderDriftMarkdown, renderDriftMarkdownParts } from '../../src/drift/render.js';
import { codeTexts, markdownProblems, tableCells } from '../support/markdown-check.js';
import { KEY, apiRecords, liveFrom } from '../plan/fixtures.js';

const GITHUB_LIMIT = 65_536;

type Kind = 'blocked' | 'destroy' | 'replace' | 'update' | 'deploy' | 'create' | 'unmanaged';
/** One in twenty of each destructive kind, the rest mostly updates and creates. */
const PATTERN: Kind[] = ['blocked', 'destroy', 'replace', 'update', 'update', 'update', 'update', 'deploy', 'deploy', 'create', 'create', 'create', 'create', 'create', 'create', 'create', 'create', 'create', 'unmanaged', 'unmanaged'];

/** A plan of exactly `n` changes over environments of 50 (or `perEnvironment`), with names that are markdown, HTML and pipes. */
function generatedPlan(n: number, opts: { hugeValue?: boolean; perEnvironment?: number } = {}): Plan {
  const per = opts.perEnvironment ?? 50;
  const changes: ResourceChange[] = [];
  const deployOrder: DeployGroup[] = [];
  const summary = { add: 0, change: 0, destroy: 0, deploy: 0, unmanaged: 0, blocked: 0 };
  for (let i = 0; i < n; i++) {
    const env = `project.p${Math.floor(i / (per * 10))}/environment.e${Math.floor(i / per)}`;
    const kind = PATTERN[i % PATTERN.length]!;
    // Every seventh name carries characters that mean something in markdown or HTML.
    const name = i % 7 === 0 ? `svc-${i}_*x*|</details>\`\`\`` : `svc-${i}`;
    const base = { address: `${env}/application.${name}`, kind: 'application' as const, name, reasons: [] as string[], fields: [] as ResourceChange['fields'], depends_on: [] as string[] };
    let c: ResourceChange;
    if (kind === 'blocked') {
      c = { ...base, address: `${env}/database.db-${i}`, kind: 'database', name: `db-${i}`, actions: ['delete', 'create'], status: 'blocked', reasons: ['destroys the data of a database: re-run with --allow-data-loss to permit it'], fields: [{ field: 'type', before: 'MYSQL', after: 'POSTGRESQL', forces_replace: true }] };
      summary.blocked++;
    } else if (kind === 'destroy') {
      c = { ...base, actions: ['delete'], status: 'planned', before: { cpu: 500 } };
      summary.destroy++;
    } else if (kind === 'replace') {
      c = { ...base, actions: ['delete', 'create'], status: 'planned', fields: [{ field: 'build_mode', before: 'DOCKER', after: 'BUILDPACKS', forces_replace: true }] };
      summary.add++;
      summary.destroy++;
    } else if (kind === 'update') {
      const big = opts.hugeValue && i === 3;
      const value = big ? Array.from({ length: 4_000 }, (_, l) => `line ${l} ${'x'.repeat(25)}`).join('\n') : 'a: 1\nb: 2\n';
      c = { ...base, actions: ['update'], status: 'planned', fields: [{ field: 'cpu', before: 250, after: 500 }, { field: 'arguments', before: 'a: 1\n', after: value }], deploy: { reasons: ['configuration changed (cpu)'] } };
      summary.change++;
      summary.deploy++;
    } else if (kind === 'deploy') {
      c = { ...base, actions: ['no-op'], status: 'planned', deploy: { reasons: ['variables LOG_LEVEL changed'] } };
      summary.deploy++;
    } else if (kind === 'create') {
      c = { ...base, actions: ['create'], status: 'planned', after: { name, cpu: 500, memory: 512, git_repository: { url: 'https://github.com/acme/api.git', branch: 'main' } }, deploy: { reasons: ['created'] } };
      summary.add++;
      summary.deploy++;
    } else {
      c = { ...base, actions: ['no-op'], status: 'unmanaged', reasons: ['not in the manifest; kept: add `prune: {services: true}` to delete it'] };
      summary.unmanaged++;
    }
    changes.push(c);
    if (c.deploy) {
      let group = deployOrder.find((g) => g.environment === env);
      if (!group) deployOrder.push((group = { environment: env, stages: [{ stage: 'data', services: [] }, { stage: 'apps', services: [] }] }));
      group.stages[i % 2]!.services.push(c.address);
    }
  }
  return { format_version: '1.0', organization_id: 'org', changes, summary, deploy_order: deployOrder, live_objects: {}, request_count: 42, options: { allow_data_loss: false }, applyable: summary.blocked === 0, diagnostics: [] };
}

/** Which part holds each address (as shown in code: `Address: <code>…</code>`, the untouched list). */
function partsOfAddresses(parts: string[]): Map<string, Set<number>> {
  const where = new Map<string, Set<number>>();
  parts.forEach((p, i) => {
    for (const text of codeTexts(p)) {
      const set = where.get(text) ?? new Set<number>();
      set.add(i);
      where.set(text, set);
    }
  });
  return where;
}

function expectWellFormedParts(parts: string[], heading: RegExp): void {
  for (const [i, part] of parts.entries()) {
    expect(part.length, `part ${i + 1}`).toBeLessThan(GITHUB_LIMIT);
    expect(part.length, `part ${i + 1} leaves room for a marker line`).toBeLessThanOrEqual(60_000);
    expect(markdownProblems(part), `part ${i + 1} of ${parts.length}`).toEqual([]);
    const title = part.split('\n').find((l) => l.startsWith('### '))!;
    expect(title).toMatch(heading);
    expect(title).toContain(`(part ${i + 1} of ${parts.length})`);
    expect(part).not.toMatch(/not shown|truncated/);
  }
}

describe('plan markdown parts: every part well-formed and under the limit, every address in exactly one', () => {
  for (const n of [10, 1_000, 10_000]) {
    it(`a plan of ${n.toLocaleString('en-US')} changes`, () => {
      const plan = generatedPlan(n, { hugeValue: n === 1_000 });
      const parts = renderPlanMarkdownParts(plan);
      expectWellFormedParts(parts, /^### driftless plan /);
      if (n === 10) expect(parts).toHaveLength(1);
      else expect(parts.length).toBeGreaterThan(1);

      // The summary line is in part 1, and only there.
      expect(summaryLine(plan)).toMatch(/^Plan: \d+ to add/);
      expect(parts[0]).toContain(`**${summaryLine(plan)}**`);
      expect(parts.slice(1).some((p) => p.includes('**Plan:'))).toBe(false);

      // Every address in exactly one part (a destroyed resource named in part 1's warning has its
      // section there too), and nothing shown that is not in the plan.
      const where = partsOfAddresses(parts);
      for (const c of plan.changes) expect([...(where.get(c.address) ?? [])], c.address).toHaveLength(1);
      const addresses = new Set(plan.changes.map((c) => c.address));
      expect([...where.keys()].filter((a) => a.includes('/') && !addresses.has(a))).toEqual([]);

      // Order: blocked and destructive changes, then updates, then creates.
      const order = parts.join('\n');
      const firstOf = (k: RegExp) => order.search(k);
      const lastOf = (k: RegExp) => Math.max(...[...order.matchAll(new RegExp(k, 'g'))].map((m) => m.index!));
      expect(lastOf(/\(replace\) — \*\*blocked\*\*/)).toBeLessThan(firstOf(/\((destroy|replace)\)<\/summary>/));
      expect(lastOf(/\((destroy|replace)\)<\/summary>/)).toBeLessThan(firstOf(/\(update, deploy\)/));
      expect(lastOf(/\(update, deploy\)/)).toBeLessThan(firstOf(/\(create, deploy\)/));

      // stdout gets the whole plan, in one well-formed document, with the same addresses.
      const whole = renderPlanMarkdown(plan);
      expect(markdownProblems(whole)).toEqual([]);
      const shown = new Set(codeTexts(whole));
      expect(plan.changes.filter((c) => !shown.has(c.address))).toEqual([]);
    });
  }

  it('leaves the mermaid diagram out above its size limit, with a note, and keeps it below', () => {
    const big = generatedPlan(10_000);
    expect(renderDeployMermaid(big).length).toBeGreaterThan(MERMAID_MAX_TEXT_SIZE);
    const bigParts = renderPlanMarkdownParts(big).join('\n');
    expect(bigParts).not.toContain('```mermaid');
    expect(bigParts).toMatch(/The deploy-order diagram is left out: its [\d,]+ characters are over mermaid's limit of 50,000/);
    const small = renderPlanMarkdownParts(generatedPlan(10)).join('\n');
    expect(small).toContain('```mermaid\nflowchart LR');
    expect(small).not.toContain('left out');
  });

  it('cuts only the diff of a value too large for any comment, inside its fence, saying so', () => {
    const parts = renderPlanMarkdownParts(generatedPlan(1_000, { hugeValue: true }));
    const holder = parts.find((p) => p.includes('svc-3</b>'))!;
    expect(holder).toMatch(/_\d[\d,]* more lines of this diff left out: too long for a comment\./);
    expect(markdownProblems(holder)).toEqual([]);
  });

  it('names in part 1 only the destroyed resources whose section is in part 1', () => {
    // A summary table of 2,000 environments fills part 1 before any section: the warning then
    // names none of them (they are listed first after the table).
    const plan = generatedPlan(4_000, { perEnvironment: 2 });
    const parts = renderPlanMarkdownParts(plan);
    const warning = parts[0]!.split('\n').filter((l) => l.startsWith('> - '));
    const where = partsOfAddresses(parts);
    expect(warning).toEqual([]);
    expect(parts[0]).toMatch(/This plan \*\*destroys or replaces [\d,]+ resources\*\*, listed first below\./);
    for (const c of plan.changes) expect([...(where.get(c.address) ?? [])], c.address).toHaveLength(1);
    // With a small table, the warnings name the first blocked resources (their sections open
    // part 1); the destroyed ones, whose sections come after 200 blocked ones, are only counted.
    const small = renderPlanMarkdownParts(generatedPlan(4_000));
    const named = small[0]!.split('\n').filter((l) => l.startsWith('> - ') && !l.includes(' more')).map((l) => codeTexts(l)[0]!);
    expect(named).toHaveLength(20);
    const whereSmall = partsOfAddresses(small);
    for (const a of named) expect(whereSmall.get(a), a).toEqual(new Set([0]));
    expect(small[0]).toMatch(/This plan \*\*destroys or replaces 400 resources\*\*, listed first below\./);
  });
});

describe("the plan of issue 12: 1,192 resources to create, through the pure core", () => {
  it('is whole in parts: 0 resources "not shown"', () => {
    const m: Manifest = {
      version: 1,
      projects: Array.from({ length: 4 }, (_, p) => ({
        name: `team-${p}`,
        environments: Array.from({ length: 2 }, (_, e) => ({
          name: `env-${e}`,
          cluster: 'production-cluster',
          services: Array.from({ length: 148 }, (_, i) => ({ type: 'container' as const, name: `svc-${i}`, registry: 'docker-hub', image_name: 'nginx', tag: '1', description: 'x'.repeat(100) })),
        })),
      })),
    };
    const plan = computePlan(buildGraph(m).graph, liveFrom({ ...apiRecords(), projects: [], environments: [], services: [], stages: [], variables: {} }), { fingerprintKey: KEY });
    const visible = plan.changes.filter((c) => !(c.actions[0] === 'no-op' && !c.deploy));
    expect(visible).toHaveLength(1_196);
    const parts = renderPlanMarkdownParts(plan);
    expectWellFormedParts(parts, /^### driftless plan /);
    const where = partsOfAddresses(parts);
    for (const c of visible) expect([...(where.get(c.address) ?? [])], c.address).toHaveLength(1);
    expect(parts[0]).toMatch(/\*\*Plan: 1196 to add/);
  });
});

describe('drift markdown parts', () => {
  const item = (n: number): DriftItem => ({
    address: `project.p/environment.e${Math.floor(n / 50)}/application.app-${n}${n % 9 === 0 ? '|`x`</details>' : ''}`,
    kind: 'application',
    name: `app-${n}`,
    drift: 'changed',
    origin: 'outside_git',
    summary: 'cpu changed live after the last deployment',
    fields: [{ field: 'cpu', live: 2000, git: 1000 }],
    since: '2026-11-20T10:00:00.000Z',
    apply_action: 'update it to match Git',
    apply_fixes: true,
  });
  for (const n of [10, 1_000, 10_000]) {
    it(`a drift of ${n.toLocaleString('en-US')} resources`, () => {
      const items = Array.from({ length: n }, (_, i) => item(i));
      const report: DriftReport = { format_version: '1.0', in_sync: false, fingerprint: driftFingerprint(items), summary: { drifted: n, outside_git: n, git: 0, unknown: 0, not_fixed_by_apply: 0 }, items, checked: n, request_count: 9 };
      const parts = renderDriftMarkdownParts(report, { paths: ['infra'] });
      expectWellFormedParts(parts, /^### ⚠️ Drift: /);
      // The marker a workflow finds the issue by opens part 1 only.
      expect(parts[0]!.split('\n')[0]).toBe(fingerprintMarker(report));
      expect(parts.slice(1).some((p) => p.includes('driftless-drift fingerprint'))).toBe(false);
      // Every drifted address is one table row, in exactly one part.
      const rows = parts.map((p) => new Set(tableCells(p)));
      for (const i of items) expect(rows.filter((r) => r.has(i.address)), i.address).toHaveLength(1);
      expect(markdownProblems(renderDriftMarkdown(report, { paths: ['infra'] }))).toEqual([]);
    });
  }
});

describe('packMarkdown', () => {
  it('refuses a block larger than a part rather than cutting it', () => {
    expect(() => packMarkdown({ heading: () => '### t', head: 'h', blocks: [textBlock('x'.repeat(2_000))] }, 1_000)).toThrow(/does not fit/);
  });

  it('repeats a table header in the part a table continues in, and numbers the parts', () => {
    const rows = Array.from({ length: 100 }, (_, i) => `| r${i} | ${'y'.repeat(20)} |`);
    const parts = packMarkdown({ heading: (p) => `### t${p ? ` (part ${p.index} of ${p.count})` : ''}`, head: 'summary', blocks: [{ kind: 'group', open: () => '| a | b |\n|---|---|', items: rows, close: '' }] }, 1_000);
    expect(parts.length).toBeGreaterThan(2);
    for (const [i, p] of parts.entries()) {
      expect(p.length).toBeLessThanOrEqual(1_000);
      expect(p.startsWith(`### t (part ${i + 1} of ${parts.length})\n\n`)).toBe(true);
      expect(markdownProblems(p)).toEqual([]);
      if (i > 0) expect(p).toContain('| a | b |\n|---|---|\n| r');
    }
    expect(parts.join('').match(/\| r\d+ \|/g)).toHaveLength(100);
  });
});

describe('drift markdown parts with a huge value', () => {
  it('cuts only the text block of a value too large for any issue, inside its fence, saying so', () => {
    const huge: DriftItem = {
      address: 'project.p/environment.e/variable.CONFIG_FILE',
      kind: 'variable',
      name: 'CONFIG_FILE',
      drift: 'changed',
      origin: 'outside_git',
      summary: 'value changed live after the last deployment',
      fields: [{ field: 'value', live: 'x'.repeat(150_000), git: 'y' }],
      apply_action: 'update it to match Git',
      apply_fixes: true,
    };
    const report: DriftReport = { format_version: '1.0', in_sync: false, fingerprint: driftFingerprint([huge]), summary: { drifted: 1, outside_git: 1, git: 0, unknown: 0, not_fixed_by_apply: 0 }, items: [huge], checked: 1, request_count: 1 };
    const parts = renderDriftMarkdownParts(report, { paths: ['infra'] });
    expectWellFormedParts(parts, /^### ⚠️ Drift: /);
    expect(parts.join('\n')).toMatch(/_[\d,]+ more characters of these values left out: too long for an issue\./);
    // stdout keeps the whole value.
    expect(renderDriftMarkdown(report, { paths: ['infra'] })).toContain('x'.repeat(150_000));
  });
});
