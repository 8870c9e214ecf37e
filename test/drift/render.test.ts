/**
 * Drift reports as text, from a fixed report: golden human and markdown output (what a CI log and
 * an issue show), escaping of names crafted to inject markdown, HTML, mentions or terminal
 * escapes, and the fingerprint: stable for the same drift, different for a different one.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { driftFingerprint, type DriftItem, type DriftReport } from '../../src/drift/detect.js';
import { fingerprintMarker, renderDriftHuman, renderDriftJson, renderDriftMarkdown, renderDriftMarkdownParts } from '../../src/drift/render.js';
import { escapeMarkdown } from '../../src/render/escape.js';
import { createPalette } from '../../src/render/palette.js';

const golden = (name: string) => path.resolve(__dirname, '../golden/drift', name);
function matchGolden(name: string, actual: string): void {
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(golden(name), actual);
  expect(actual).toBe(readFileSync(golden(name), 'utf8'));
}

const items: DriftItem[] = [
  {
    address: 'project.shop/environment.production/application.api',
    kind: 'application',
    name: 'api',
    drift: 'changed',
    origin: 'outside_git',
    summary: 'cpu changed live at 2026-11-20T10:00:00.000Z, after the last deployment (2026-11-19T08:00:00.000Z): changed outside Git',
    fields: [{ field: 'cpu', live: 2000, git: 1000 }],
    since: '2026-11-20T10:00:00.000Z',
    last_deployment: '2026-11-19T08:00:00.000Z',
    source: { file: 'infra/shop.yaml', start: { line: 81, col: 13 } },
    apply_action: 'update it to match Git',
    apply_fixes: true,
  },
  {
    address: 'project.shop/variable.STRIPE_API_KEY',
    kind: 'variable',
    name: 'STRIPE_API_KEY',
    drift: 'changed',
    origin: 'outside_git',
    summary: 'secret updated live at 2026-11-20T11:00:00.000Z, after the last deployment (2026-11-19T08:00:00.000Z): its value was replaced outside Git (the API never returns it)',
    fields: [{ field: 'value', sensitive: true }],
    since: '2026-11-20T11:00:00.000Z',
    source: { file: 'infra/shop.yaml', start: { line: 15, col: 9 } },
    apply_action: 'write the value from Git again',
    apply_fixes: true,
  },
  {
    address: 'project.shop/environment.production/container.x](https://evil.example)<img src=x onerror=alert(1)>@admins`|',
    kind: 'container',
    name: 'x](https://evil.example)<img src=x onerror=alert(1)>@admins`|',
    drift: 'unmanaged',
    origin: 'outside_git',
    summary: 'exists live but not in Git: created outside Git; pruning is off for its scope, so apply leaves it',
    fields: [],
    since: '2026-11-20T12:00:00.000Z',
    apply_action: 'leave it (no `prune: {services: true}` on project.shop/environment.production)',
    apply_fixes: false,
    fix: 'declare it in the manifest under project.shop/environment.production (declared at infra/shop.yaml:20), add `prune: {services: true}` on project.shop/environment.production so that apply deletes it, or delete it in the console',
  },
  {
    address: 'project.shop/environment.production/container.storefront',
    kind: 'container',
    name: 'storefront',
    drift: 'missing',
    origin: 'unknown',
    summary: 'declared in Git, missing live (deleted outside Git, or added in Git and not applied yet)',
    fields: [],
    source: { file: 'infra/shop.yaml', start: { line: 108, col: 13 } },
    apply_action: 'create it',
    apply_fixes: true,
  },
];

const report: DriftReport = {
  format_version: '1.0',
  in_sync: false,
  fingerprint: driftFingerprint(items),
  summary: { drifted: 4, outside_git: 3, git: 0, unknown: 1, not_fixed_by_apply: 1 },
  items,
  checked: 31,
  request_count: 12,
};
const ctx = { paths: ['infra'] };

describe('drift rendering', () => {
  it('human text (golden)', () => {
    matchGolden('report.txt', renderDriftHuman(report, ctx, createPalette(false)));
  });

  it('markdown issue body (golden): fingerprint marker first, table, details, reconcile commands', () => {
    const md = renderDriftMarkdown(report, ctx);
    matchGolden('report.md', md);
    expect(md.split('\n')[0]).toBe(`<!-- driftless-drift fingerprint=${report.fingerprint} -->`);
  });

  it('escapes crafted names: no link, image, HTML, mention or table break gets through', () => {
    const md = renderDriftMarkdown(report, ctx);
    expect(md).not.toContain('](https://evil.example)');
    expect(md).not.toContain('<img');
    expect(md).not.toMatch(/(^|[^`&#;\w])@admins/);
    // Every table row keeps its 6 cell separators.
    for (const row of md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| |'))) expect(row.split('|').length).toBe(8);
    const human = renderDriftHuman({ ...report, items: [{ ...items[0]!, address: 'app\u001b[2J\u202eevil' }] }, ctx, createPalette(false));
    expect(human).not.toMatch(/[\u001b\u202e]/);
  });

  it('in sync: markdown says so under the same marker scheme; JSON carries the reconcile command', () => {
    const sync: DriftReport = { ...report, in_sync: true, items: [], summary: { drifted: 0, outside_git: 0, git: 0, unknown: 0, not_fixed_by_apply: 0 }, fingerprint: driftFingerprint([]) };
    expect(renderDriftMarkdown(sync, ctx)).toContain('No drift');
    expect(JSON.parse(renderDriftJson(report, ctx))).toMatchObject({ fingerprint: report.fingerprint, reconcile_command: 'driftless apply infra', in_sync: false });
  });

  it('finding 5: drift apply cannot fix is never reported as "run apply": no apply command in any format, and each item says what fixes it', () => {
    const kept = items[2]!;
    const only: DriftReport = { ...report, items: [kept], summary: { drifted: 1, outside_git: 1, git: 0, unknown: 0, not_fixed_by_apply: 1 }, fingerprint: driftFingerprint([kept]) };
    const human = renderDriftHuman(only, ctx, createPalette(false));
    const md = renderDriftMarkdown(only, ctx);
    const json = JSON.parse(renderDriftJson(only, ctx));
    for (const text of [human, md]) expect(text).not.toContain('driftless apply');
    expect(json).not.toHaveProperty('reconcile_command');
    expect(json.items[0]).toMatchObject({ apply_fixes: false, fix: kept.fix });
    expect(json.summary.not_fixed_by_apply).toBe(1);
    expect(human).toContain(`to fix it: ${kept.fix}`);
    expect(human).toContain('Running apply leaves this drift as it is');
    expect(md).toContain('To fix it: declare it in the manifest');
    // Mixed: apply is offered for what it fixes, and the rest is named as left alone.
    const mixedHuman = renderDriftHuman(report, ctx, createPalette(false));
    expect(mixedHuman).toContain('To fix 3 of the 4 resources, review and run:  driftless apply infra');
    expect(mixedHuman).toContain('Running apply leaves the other resource as it is');
    expect(JSON.parse(renderDriftJson(report, ctx)).reconcile_command).toBe('driftless apply infra');
  });

  it('says once what is outside the manifest, in sync or not, in every format, and only when something is', () => {
    const line = '2 projects outside this manifest are not managed by it (scope: declared).';
    const scoped: DriftReport = { ...report, out_of_scope: { scope: 'declared', counts: { project: 2 } } };
    const sync: DriftReport = { ...scoped, in_sync: true, items: [], summary: { drifted: 0, outside_git: 0, git: 0, unknown: 0, not_fixed_by_apply: 0 }, fingerprint: driftFingerprint([]) };
    for (const r of [scoped, sync]) {
      expect(renderDriftHuman(r, ctx, createPalette(false)).split(line).length - 1).toBe(1);
      // Markdown escapes the punctuation of the line, never its words.
      expect(renderDriftMarkdown(r, ctx).split('outside this manifest').length - 1).toBe(1);
      expect(JSON.parse(renderDriftJson(r, ctx)).out_of_scope).toEqual({ scope: 'declared', counts: { project: 2 } });
    }
    expect(renderDriftHuman(report, ctx, createPalette(false))).not.toContain('outside this manifest');
    expect(renderDriftMarkdown(report, ctx)).not.toContain('outside this manifest');
  });

  it('fingerprint: same drift, same value whatever the order or the timestamps; another drift, another value', () => {
    const shuffled = [...items].reverse().map((i) => ({ ...i, since: '2030-01-01T00:00:00.000Z', summary: 'reworded' }));
    expect(driftFingerprint(shuffled)).toBe(report.fingerprint);
    const other = items.map((i, n) => (n === 0 ? { ...i, fields: [{ field: 'cpu', live: 3000, git: 1000 }] } : i));
    expect(driftFingerprint(other)).not.toBe(report.fingerprint);
    expect(report.fingerprint).toMatch(/^sha256:[0-9a-f]{16}$/);
  });
});

describe('drift markdown size', () => {
  it("holds every item of a huge drift: the whole of it on stdout, or parts under GitHub's issue body limit", () => {
    const many: DriftItem[] = Array.from({ length: 3000 }, (_, n) => ({ ...items[0]!, address: `project.shop/environment.production/application.app-${n}`, name: `app-${n}` }));
    const big = { ...report, items: many, summary: { drifted: 3000, outside_git: 3000, git: 0, unknown: 0, not_fixed_by_apply: 0 }, fingerprint: driftFingerprint(many) };
    const md = renderDriftMarkdown(big, ctx);
    expect(md).not.toMatch(/more: see the JSON report|more resources are in the JSON report/);
    for (const i of many) expect(md).toContain(`<summary>${escapeMarkdown(i.address)}</summary>`);
    const parts = renderDriftMarkdownParts(big, ctx);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts[0]!.split('\n')[0]).toBe(fingerprintMarker(big));
    for (const [i, p] of parts.entries()) {
      expect(p.length).toBeLessThan(60_000);
      expect(p).toContain(`(part ${i + 1} of ${parts.length})`);
    }
    for (const i of many) expect(parts.filter((p) => p.includes(`<summary>${escapeMarkdown(i.address)}</summary>`))).toHaveLength(1);
    expect(parts.at(-1)).toContain('driftless apply infra');
  });

  it('says an origin is inferred from timestamps only when one was inferred, not of an unknown one', () => {
    const inferred: DriftReport = { ...report, items: items.map((i) => ({ ...i, attribution: 'inference' as const })), attribution: { source: 'inference', reason: 'the events endpoint answered 403' } };
    const human = renderDriftHuman(inferred, ctx, createPalette(false));
    expect(human).toContain('project.shop/environment.production/application.api  [changed outside Git, inferred from timestamps]');
    expect(human).toContain('project.shop/environment.production/container.storefront  [origin unknown]');
    expect(human).not.toContain('origin unknown, inferred');
    expect(renderDriftMarkdown(inferred, ctx)).not.toContain('origin unknown, inferred');
  });
});


describe('a webhook target as people read it (issue 19: `webhook.https:%2F%2Fhooks...` was unreadable)', () => {
  const hook = 'webhook.https:%2F%2Fhooks.example.com%2Fdeploys';
  it('drift --target: the partial report and the reconcile command name the webhook by its URL', () => {
    const partial: DriftReport = { ...report, targets: [hook], complete: false };
    const tctx = { paths: ['infra'], targets: [hook] };
    for (const text of [renderDriftHuman(partial, tctx, createPalette(false)), renderDriftMarkdown(partial, tctx)]) {
      expect(text).toContain('webhook.https://hooks.example.com/deploys');
      expect(text).not.toContain('%2F');
    }
    // --target takes the readable form (canonicalAddress), so the command still runs as printed.
    expect(JSON.parse(renderDriftJson(report, tctx)).reconcile_command).toBe("driftless apply infra --target webhook.https://hooks.example.com/deploys");
  });
});
