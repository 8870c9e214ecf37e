/**
 * Finding 13 of issue 11 (markdown part): `drift --format markdown` wrote control and bidi
 * characters raw in its text block, where the human and JSON outputs escape them; and a backtick
 * in an address could break the markdown of a plan. End to end: names and values changed on the
 * emulator outside Git, the CLI's markdown read back with a CommonMark parser (what GitHub shows).
 */
import MarkdownIt from 'markdown-it';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../e2e/helpers.js';

const MANIFEST = `version: 1
projects:
  - name: md-shop
    environments:
      - name: production
        cluster: production-cluster
        mode: PRODUCTION
        variables:
          - key: LOG_LEVEL
            value: info
        services:
          - name: worker
            type: container
            registry: docker-hub
            image_name: acme/worker
            tag: "1.0"
`;

/** What an attacker with console access types: a bidi override, a bell, backticks. */
const HOSTILE_VALUE = 'in\u202eof\u0007 `x` ```';
const ROGUE = 'rogue`x``y';

const parser = new MarkdownIt({ html: true, linkify: true });
type Token = ReturnType<MarkdownIt['parse']>[number];
const tokens = (md: string): Token[] => parser.parse(md, {}).flatMap((t) => [t, ...(t.children ?? [])]);
/** The text a reader sees in each inline run (entities decoded, tags left out). */
const shownTexts = (md: string): string[] =>
  parser
    .parse(md, {})
    .filter((t) => t.type === 'inline')
    .map((t) => (t.children ?? []).filter((c) => c.type === 'text' || c.type === 'code_inline').map((c) => c.content).join(''));
const RAW_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;

let h: Harness;
let api: (method: string, path: string, body?: unknown) => Promise<any>;

beforeAll(async () => {
  h = await startHarness();
  api = async (method, path, body) => {
    const r = await fetch(h.emu.url + path, {
      method,
      headers: { authorization: `Token ${h.emu.tokens.ADMIN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    expect(r.status, `${method} ${path}`).toBeLessThan(300);
    const text = await r.text();
    return text ? JSON.parse(text) : undefined;
  };
  h.write({ 'm/driftless.yaml': MANIFEST });
  const applied = await h.run(['apply', 'm', '--auto-approve']);
  expect(applied.code, applied.stderr + applied.stdout).toBe(0);
  // Outside Git: the variable's value and a new service, named with the characters under test.
  const project = (await api('GET', `/organization/${h.emu.organizationId}/project`)).results.find((p: any) => p.name === 'md-shop');
  const env = (await api('GET', `/project/${project.id}/environment`)).results.find((e: any) => e.name === 'production');
  const variable = (await api('GET', `/variable?parent_id=${env.id}&scope=ENVIRONMENT`)).results.find((v: any) => v.key === 'LOG_LEVEL');
  await api('PUT', `/variable/${variable.id}`, { key: 'LOG_LEVEL', value: HOSTILE_VALUE });
  const registry = (await api('GET', `/organization/${h.emu.organizationId}/containerRegistry`)).results[0].id;
  await api('POST', `/environment/${env.id}/container`, { name: ROGUE, registry_id: registry, image_name: 'acme/rogue', tag: 'latest' });
}, 60_000);
afterAll(async () => h.close());

describe('finding 13: markdown outputs escape what the human and JSON outputs escape', () => {
  it('finding 13: drift --format markdown shows control and bidi characters of a value as escapes in its text block', async () => {
    const human = await h.run(['drift', 'm']);
    expect(human.code).toBe(2);
    expect(human.stdout).not.toMatch(RAW_CONTROLS);
    const r = await h.run(['drift', 'm', '--format', 'markdown']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).not.toMatch(RAW_CONTROLS);
    const all = tokens(r.stdout);
    const block = all.find((t) => t.type === 'fence' && t.info === 'text' && t.content.startsWith('value: live'));
    expect(block, r.stdout).toBeDefined();
    expect(block!.content).toContain('\\u202e');
    // The backticks of the value stay inside the block: it closes where the renderer closed it.
    expect(block!.content).toContain('`x` ```');
    // The unmanaged service's address is one table cell, shown as itself.
    expect(all.some((t) => t.type === 'table_open')).toBe(true);
    const rogueAddress = `project.md-shop/environment.production/container.${ROGUE}`;
    expect(shownTexts(r.stdout).filter((t) => t.includes('rogue'))).toEqual([rogueAddress]);
    expect(all.filter((t) => t.type === 'link_open' || t.type === 'image')).toEqual([]);
  });

  it('finding 13: plan --format markdown keeps an address with backticks and a hostile value inert and readable', async () => {
    const r = await h.run(['plan', 'm', '--format', 'markdown']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW_CONTROLS);
    const all = tokens(r.stdout);
    // The diff block shows the live value (escaped) going back to Git's.
    const diff = all.find((t) => t.type === 'fence' && t.info === 'diff' && t.content.includes('info'));
    expect(diff, r.stdout).toBeDefined();
    expect(diff!.content).toContain('\\u202e');
    // The unmanaged service is listed once, its exact address as one code span, with why it is kept.
    const rogueAddress = `project.md-shop/environment.production/container.${ROGUE}`;
    const spans = all.flatMap((t) => t.children ?? []).filter((c) => c.type === 'code_inline' && c.content.includes('rogue'));
    expect(spans.map((c) => c.content)).toEqual([rogueAddress]);
    expect(shownTexts(r.stdout).filter((t) => t.includes('rogue'))).toEqual([`${rogueAddress}: not in the manifest; kept: add \`prune: {services: true}\` on project.md-shop/environment.production to delete it`]);
    expect(all.filter((t) => t.type === 'link_open' || t.type === 'image')).toEqual([]);
  });
});
