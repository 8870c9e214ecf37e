/**
 * Markdown outputs (`plan --format markdown`, `drift --format markdown`) read back with a real
 * CommonMark parser (markdown-it), so what is checked is what GitHub shows, not the text the
 * renderer wrote: an address, a key or a value with backticks, pipes, HTML, bidi overrides or
 * control characters must come out as itself (escaped where invisible), inside the element it was
 * put in, and never as HTML, a link or raw control characters.
 */
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { computePlan } from '../../src/plan/compute.js';
import type { Plan } from '../../src/plan/types.js';
import { renderPlanMarkdown } from '../../src/render/markdown.js';
import { driftFingerprint, type DriftItem, type DriftReport } from '../../src/drift/detect.js';
import { renderDriftMarkdown } from '../../src/drift/render.js';
import { KEY, apiRecords, fullManifest, liveFrom } from '../plan/fixtures.js';

const parser = new MarkdownIt({ html: true, linkify: true });
type Token = ReturnType<MarkdownIt['parse']>[number];

function tokens(md: string): Token[] {
  const out: Token[] = [];
  for (const t of parser.parse(md, {})) {
    out.push(t);
    if (t.children) out.push(...t.children);
  }
  return out;
}

/** The text of each inline block (paragraph, list item...), entities decoded, as a reader sees it. */
function inlineTexts(md: string): string[] {
  return parser
    .parse(md, {})
    .filter((t) => t.type === 'inline')
    .map((t) => (t.children ?? []).map((c) => (c.type === 'code_inline' ? `\`${c.content}\`` : c.content)).join(''));
}

/** Nothing user-controlled became markup: no link, no image, no HTML beyond the renderer's own tags. */
function expectInert(md: string): void {
  const all = tokens(md);
  expect(all.filter((t) => t.type === 'link_open' || t.type === 'image')).toEqual([]);
  const tags = all
    .filter((x) => x.type === 'html_inline' || x.type === 'html_block')
    .flatMap((t) => [...t.content.matchAll(/<\/?([A-Za-z][\w-]*)/g)].map((m) => m[1]!.toLowerCase()));
  expect(tags.length).toBeGreaterThan(0);
  for (const tag of tags) expect(['details', 'summary', 'code', 'b', 'sub']).toContain(tag);
  expect(md).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/);
}

const TICKS = 'a`b``c';
const EVIL = `${TICKS}|<img src=x onerror=alert(1)>`;

function planWithHostileAddresses(): { plan: Plan; destroyed: string; diagnosed: string; summary: string } {
  const r = apiRecords();
  r.services[2]!.type = 'MYSQL'; // a database type change: a replacement, listed as destructive
  const plan = computePlan(buildGraph(fullManifest()).graph, liveFrom(r, 3), { fingerprintKey: KEY });
  const replaced = plan.changes.find((c) => c.actions[0] === 'delete');
  expect(replaced, 'the fixture plan destroys something').toBeDefined();
  const destroyed = `project.shop/environment.${TICKS}/database.${EVIL}`;
  const diagnosed = 'project.sh`op/environment.production/`application.api`';
  const summary = "unknown key '`evil``key`' in application \u202eapi\u0007: allowed keys are name, cpu";
  const changes = plan.changes.map((c) => (c === replaced ? { ...c, address: destroyed, name: EVIL } : c));
  return {
    plan: { ...plan, changes, diagnostics: [...plan.diagnostics, { severity: 'error', code: 'unknown-key', summary, address: diagnosed } as Plan['diagnostics'][number]] },
    destroyed,
    diagnosed,
    summary,
  };
}

describe('plan --format markdown, read back by a CommonMark parser', () => {
  const { plan, destroyed, diagnosed, summary } = planWithHostileAddresses();
  const md = renderPlanMarkdown(plan);

  it('an address with backticks shows as itself, in one code span, in the destroy warning and the diagnostics', () => {
    const codes = tokens(md).filter((t) => t.type === 'code_inline').map((t) => t.content);
    expect(codes).toContain(destroyed);
    expect(codes).toContain(diagnosed);
  });

  it('a diagnostic about an unknown key with backticks keeps its words and breaks nothing after it', () => {
    const texts = inlineTexts(md);
    const line = texts.find((t) => t.startsWith('error: unknown key'));
    expect(line).toBe(`error: ${summary.replace('\u202e', '\\u202e').replace('\u0007', '\\x07')} (\`${diagnosed}\`)`);
    // The summary table still parses as a table after the warnings.
    expect(tokens(md).some((t) => t.type === 'table_open')).toBe(true);
  });

  it('names cannot inject markup or raw control characters', () => {
    expectInert(md);
    const summaries = tokens(md).filter((t) => t.type === 'text' && t.content.includes('img src'));
    expect(summaries.length).toBeGreaterThan(0); // shown as text, not as an image
  });
});

describe('drift --format markdown, read back by a CommonMark parser', () => {
  const bidi = 'admin\u202e\u0007gnp.exe';
  const item: DriftItem = {
    address: `project.shop/environment.production/container.${TICKS}`,
    kind: 'container',
    name: TICKS,
    drift: 'changed',
    origin: 'outside_git',
    summary: `image_name changed live: ${bidi}`,
    fields: [
      { field: 'image_name', live: bidi, git: 'nginx' },
      { field: `tag\u202e\u0007`, live: '1.27\u0007', git: '```\n<img src=x>' },
    ],
    since: '2026-11-20T10:00:00.000Z',
    source: { file: 'infra/sh`op\u202e.yaml', start: { line: 3, col: 5 } },
    apply_action: 'update it to match Git',
    apply_fixes: true,
  };
  const report: DriftReport = {
    format_version: '1.0',
    in_sync: false,
    fingerprint: driftFingerprint([item]),
    summary: { drifted: 1, outside_git: 1, git: 0, unknown: 0, not_fixed_by_apply: 0 },
    items: [item],
    checked: 3,
    request_count: 2,
  };
  const md = renderDriftMarkdown(report, { paths: ['infra\u202e/evil`dir'] });

  it('the text block of field differences shows control and bidi characters as escapes, like the human output', () => {
    const blocks = tokens(md).filter((t) => t.type === 'fence');
    const text = blocks.find((t) => t.info === 'text');
    expect(text).toBeDefined();
    expect(text!.content).toContain('\\u202e');
    expect(text!.content).not.toMatch(/[\u0007\u202e]/);
    // Each field is still on its own line, and the block closes where the renderer closed it.
    expect(text!.content.split('\n').filter((l) => l.startsWith('image_name') || l.startsWith('tag'))).toHaveLength(2);
    expect(text!.content).toContain('<img src=x>');
  });

  it('the reconcile commands (paths are user input) are escaped too, and nothing becomes markup', () => {
    const sh = tokens(md).find((t) => t.type === 'fence' && t.info === 'sh');
    expect(sh!.content).toContain('infra\\u202e/evil`dir');
    expectInert(md);
  });
});
