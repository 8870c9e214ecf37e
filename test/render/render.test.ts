import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import type { Manifest } from '../../src/manifest/types.js';
import { SecretValue } from '../../src/model/secret.js';
import { computePlan } from '../../src/plan/compute.js';
import type { Plan, PlanOptions } from '../../src/plan/types.js';
import { renderPlanHuman } from '../../src/render/human.js';
import jsonPatch from 'fast-json-patch';
import { planToJson, renderPlanJson, type JsonPlanMeta } from '../../src/render/json.js';
import { renderPlanMarkdown, renderPlanMarkdownParts } from '../../src/render/markdown.js';
import { renderDeployMermaid, renderGraphDot, renderGraphMermaid } from '../../src/render/graph.js';
import { createPalette } from '../../src/render/palette.js';
import { escapeControl, escapeMarkdown, fenceFor } from '../../src/render/escape.js';
import { ALL_SECRETS, KEY, apiRecords, fullManifest, id, liveFrom } from '../plan/fixtures.js';

/**
 * A plan with every kind of change: create, update (scalar, multi-line, secret), replace (blocked),
 * deploy, unmanaged (a webhook: the manifest declares webhooks, so it owns them), and a project
 * outside the manifest's scope (counted in one line, not listed).
 */
/** Fixed metadata: the golden file must not depend on the clock or the package version. */
const META: JsonPlanMeta = { driftless_version: '0.0.0-test', timestamp: '2026-01-02T03:04:05.000Z' };

function mixedPlan(options: PlanOptions = {}): { plan: Plan; manifest: Manifest } {
  const m = fullManifest();
  m.projects![0]!.variables![1]!.value = new SecretValue('sk_live_ROTATED_DO_NOT_PRINT');
  const r = apiRecords();
  r.services[0]!.cpu = 1000;
  r.services[2]!.type = 'MYSQL';
  r.services.splice(1, 1); // web is missing: created
  r.stages[2]!.services.splice(1, 1);
  r.variables[id('production')]![2]!.value = 'a: 1\nb: 3\nc: 4\n';
  // The declared webhook is missing (created); another one exists live only (unmanaged).
  r.webhooks = [{ id: 'w-old', kind: 'STANDARD', target_url: 'https://old.example.com/hook', target_secret_set: false, description: null, enabled: true, events: ['DEPLOYMENT_FAILED'], project_names_filter: [], environment_types_filter: [], created_at: 'x', updated_at: 'x' }];
  r.projects.push({ id: 'p2', name: 'legacy', created_at: 'x' });
  const plan = computePlan(buildGraph(m).graph, liveFrom(r, 12), { fingerprintKey: KEY, ...options });
  return { plan, manifest: m };
}

function noChangePlan(): Plan {
  return computePlan(buildGraph(fullManifest()).graph, liveFrom(apiRecords(), 9), { fingerprintKey: KEY });
}

describe('golden plan outputs', () => {
  const { plan, manifest } = mixedPlan();

  it('human', async () => {
    await expect(renderPlanHuman(plan)).toMatchFileSnapshot('../golden/plan/mixed.txt');
    await expect(renderPlanHuman(noChangePlan())).toMatchFileSnapshot('../golden/plan/no-changes.txt');
  });

  it('json', async () => {
    await expect(renderPlanJson(plan, META, { pretty: true })).toMatchFileSnapshot('../golden/plan/mixed.json');
  });

  it('markdown', async () => {
    await expect(renderPlanMarkdown(plan)).toMatchFileSnapshot('../golden/plan/mixed.md');
  });

  it('graph', async () => {
    const graph = buildGraph(manifest).graph;
    await expect(renderGraphDot(graph, plan)).toMatchFileSnapshot('../golden/plan/mixed.dot');
    await expect(renderGraphMermaid(graph, plan)).toMatchFileSnapshot('../golden/plan/mixed.mmd');
  });

  it('no output holds a secret value', () => {
    const graph = buildGraph(manifest).graph;
    const all = [renderPlanHuman(plan), renderPlanJson(plan, META), renderPlanMarkdown(plan), renderGraphDot(graph, plan), renderGraphMermaid(graph, plan)].join('\n');
    for (const s of [...ALL_SECRETS, 'sk_live_ROTATED_DO_NOT_PRINT']) expect(all).not.toContain(s);
    expect(all).not.toContain(plan.changes.find((c) => c.address === 'project.shop/variable.API_KEY')!.fingerprints!.value);
  });
});

describe('human renderer', () => {
  const { plan } = mixedPlan();
  const text = renderPlanHuman(plan);

  it('ends with the summary and the request count', () => {
    const last = text.trimEnd().split('\n').pop();
    // The blocked database replacement is not counted as an add and a destroy, but said to be blocked.
    expect(last).toBe('Plan: 2 to add, 4 to change, 0 to destroy, 5 to deploy; 1 blocked (not done, not counted). Live state read with 12 API requests.');
    const allowed = renderPlanHuman(mixedPlan({ allowDataLoss: true, allowReplace: true }).plan);
    // Allowed, the replaced database starts outside its stage: stage "data" gains it again (the fifth change).
    expect(allowed.trimEnd().split('\n').pop()).toBe('Plan: 3 to add, 5 to change, 1 to destroy, 6 to deploy. Live state read with 12 API requests.');
    expect(renderPlanHuman(noChangePlan()).trimEnd().split('\n').pop()).toBe('No changes. Live state read with 9 API requests.');
  });

  it('shows markers, before -> after, line diffs and sensitive values', () => {
    expect(text).toContain('  ~ application "api"\n      ~ cpu: 1000 -> 500\n');
    expect(text).toContain('  -/+ database "db"');
    expect(text).toContain('      ~ type: "MYSQL" -> "POSTGRESQL" # forces replacement');
    expect(text).toContain('      ~ value: (sensitive value) -> (sensitive value)');
    expect(text).toMatch(/~ value:\n {10}  a: 1\n {10}- b: 3\n {10}- c: 4\n {10}\+ b: 2\n/);
    expect(text).toContain('  > job "nightly"\n      > deploy: variables CONFIG_FILE, API_KEY changed (tag 2.0)');
    expect(text).toContain('Project shop / environment production');
    expect(text).toContain('  ? webhook.https://old.example.com/hook');
    expect(text).not.toContain('project.legacy');
    expect(text).toContain('\n1 project outside this manifest is not managed by it (scope: kinds, the default).\nPlan: ');
  });

  it('shows only the changed sub-fields of an object', () => {
    const r = apiRecords();
    r.services[0]!.git_repository.branch = 'develop';
    const p = computePlan(buildGraph(fullManifest()).graph, liveFrom(r), { fingerprintKey: KEY });
    expect(renderPlanHuman(p)).toContain('      ~ git_repository.branch: "develop" -> "main"\n');
    expect(renderPlanMarkdown(p)).toContain('- git_repository.branch = "develop"\n+ git_repository.branch = "main"');
  });

  it('colours only when asked', () => {
    expect(text).not.toMatch(/\u001b\[/);
    expect(renderPlanHuman(plan, { palette: createPalette(true) })).toMatch(/\u001b\[33m~\u001b\[39m cpu/);
  });
});

describe('json renderer', () => {
  const { plan } = mixedPlan();
  const doc = planToJson(plan, META);

  it('follows the contract: format_version, summary, resource_changes with actions and masks', () => {
    expect(doc.format_version).toBe('1.0');
    expect(doc.summary).toMatchObject({ add: 2, change: 4, destroy: 0, deploy: 5, blocked: 1 });
    expect(doc.request_count).toBe(12);
    const rc = (a: string) => doc.resource_changes.find((c) => c.address === a)!;
    // Deployments are not actions (Terraform's closed set): they are change.deploy.
    expect(rc('project.shop/environment.production/application.api').change.actions).toEqual(['update']);
    expect(rc('project.shop/environment.production/application.api').change.deploy).toMatchObject({ reasons: expect.any(Array) });
    expect(rc('project.shop/environment.production/job.nightly').change.actions).toEqual(['no-op']);
    expect(rc('project.shop/environment.production/job.nightly').change.deploy).toBeDefined();
    expect(rc('project.shop/environment.production/container.web').change.actions).toEqual(['create']);
    expect(rc('project.shop/environment.production/container.web').change.deploy).toBeDefined();
    for (const c of doc.resource_changes) expect(c.change.actions.every((a) => ['create', 'update', 'delete', 'no-op'].includes(a)), c.address).toBe(true);
    expect(doc.summary.deploy).toBe(doc.resource_changes.filter((c) => c.change.deploy && c.status !== 'blocked').length);
    // A blocked change keeps the actions it would take, and says why it is blocked and what allows it.
    expect(rc('project.shop/environment.production/database.db').change.actions).toEqual(['delete', 'create']);
    expect(rc('project.shop/environment.production/database.db').blocked).toEqual({
      reasons: ['destroys the data of a database', 'replaces the deployed database "db"'],
      flags: ['--allow-data-loss', '--allow-replace'],
    });
    expect(rc('project.shop/environment.production/application.api').blocked).toBeUndefined();
    expect(rc('project.shop').change.actions).toEqual(['no-op']);
    const secret = rc('project.shop/variable.API_KEY');
    expect(secret.change.after!.value).toBeNull();
    expect(secret.change.after_sensitive).toEqual({ value: true });
    expect(rc('project.shop/environment.production/application.api').change.before).toMatchObject({ cpu: 1000 });
    expect(JSON.parse(renderPlanJson(plan, META))).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it('carries what Terraform tools read: version, timestamp, mode, provider_name, after_unknown', () => {
    expect(doc).toMatchObject({ driftless_version: '0.0.0-test', timestamp: '2026-01-02T03:04:05.000Z', errored: false });
    const rc = (a: string) => doc.resource_changes.find((c) => c.address === a)!;
    for (const c of doc.resource_changes) expect(c).toMatchObject({ mode: 'managed', provider_name: 'driftless/infrastructure-api' });
    expect(rc('project.shop/environment.production/container.web').change.after_unknown).toEqual({ id: true });
    expect(rc('project.shop/environment.production/application.api').change.after_unknown).toEqual({});
  });

  it('carries each update as a JSON Patch that turns before into after on the changed fields', () => {
    const updates = doc.resource_changes.filter((c) => c.change.actions[0] === 'update');
    expect(updates.length).toBeGreaterThan(1);
    for (const c of updates) {
      const patched = jsonPatch.applyPatch(structuredClone(c.change.before), c.change.patch!, true, false).newDocument as Record<string, unknown>;
      for (const f of c.change.changed_fields) expect(patched[f], `${c.address} ${f}`).toEqual(c.change.after![f]);
    }
    const api = doc.resource_changes.find((c) => c.address === 'project.shop/environment.production/application.api')!;
    expect(api.change.patch).toContainEqual({ op: 'replace', path: '/cpu', value: 500 });
    // A changed secret is in the patch, masked like before/after.
    const secret = doc.resource_changes.find((c) => c.address === 'project.shop/variable.API_KEY')!;
    // The API never returns a secret: before has no value, so the patch adds one, null.
    expect(secret.change.patch).toEqual([{ op: 'add', path: '/value', value: null }]);
    // No patch where nothing is updated.
    expect(doc.resource_changes.find((c) => c.address === 'project.shop')!.change.patch).toBeUndefined();
  });
});

describe('escaping of user-controlled strings', () => {
  const evil = 'x\u001b[31mred\u202e<img src=x onerror=alert(1)>@admin [link](http://evil.example) `code`';
  const manifest: Manifest = {
    version: 1,
    projects: [{ name: evil, environments: [{ name: 'e\r\nfake: line', cluster: 'production-cluster', services: [{ type: 'container', name: evil, registry: 'docker-hub', image_name: 'i', tag: '1' }] }] }],
  };
  const plan = computePlan(buildGraph(manifest).graph, liveFrom({ ...apiRecords(), projects: [], environments: [], services: [], stages: [], variables: {} }), { fingerprintKey: KEY });

  it('human output shows control characters as escapes', () => {
    const text = renderPlanHuman(plan);
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
    expect(text).toContain('x\\x1b[31mred\\u202e<img');
    expect(text).toContain('e\\r\\nfake: line');
  });

  it('JSON output escapes them and still parses to the same names', () => {
    const text = renderPlanJson(plan, META);
    expect(text).not.toMatch(/[\u001b\u202e]/);
    expect(JSON.parse(text).resource_changes[0].name).toBe(evil);
  });

  it('markdown output cannot inject HTML, links, mentions or break out of code', () => {
    const md = renderPlanMarkdown(plan);
    // Fenced code renders literally; everything outside it must be inert.
    const fences = md.match(/^(`{3,})[a-z]*\n[\s\S]*?^\1$/gm) ?? [];
    for (const f of fences) expect(f.split('\n').slice(1, -1).join('\n')).not.toMatch(/^`{3,}/m);
    const outside = fences.reduce((acc, f) => acc.replace(f, ''), md);
    expect(outside).not.toContain('<img');
    expect(outside).not.toContain('@admin');
    expect(outside).not.toContain('](http');
    expect(outside).not.toContain('http://evil');
    expect(md).not.toMatch(/[\u001b\u202e\r]/);
    expect(escapeMarkdown('<b>@x</b>')).toBe('&#60;b&#62;&#64;x&#60;/b&#62;');
    expect(fenceFor('a ```` b')).toBe('`````');
  });

  it('graph outputs keep names inside escaped labels', () => {
    const g = buildGraph(manifest).graph;
    const dot = renderGraphDot(g, plan);
    expect(dot).not.toMatch(/[\u001b\u202e]/);
    for (const line of dot.split('\n').filter((l) => l.includes('label='))) expect(line).toMatch(/label="([^"\\]|\\.)*"/);
    const mmd = renderGraphMermaid(g, plan);
    const labels = [...mmd.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
    expect(labels.length).toBeGreaterThan(2);
    for (const l of labels) expect(l).toMatch(/^[A-Za-z0-9 _./,#;-]*(<br\/>[A-Za-z0-9 _./,#;-]*)*$/);
    expect(mmd).toContain('#60;img');
  });

  it('escapeControl leaves ordinary text alone', () => {
    expect(escapeControl('plain name-1.2_x')).toBe('plain name-1.2_x');
  });
});

describe('markdown renderer', () => {
  it('warns when anything is destroyed or replaced, and embeds the deploy order', () => {
    const md = renderPlanMarkdown(mixedPlan({ allowDataLoss: true, allowReplace: true }).plan);
    expect(md).toMatch(/> \[!WARNING\]\n> This plan \*\*destroys or replaces 1 resource\*\*/);
    // Blocked, the replacement is not announced as done: it is listed as blocked, with its flags.
    const blocked = renderPlanMarkdown(mixedPlan().plan);
    expect(blocked).not.toContain('destroys or replaces');
    expect(blocked).toContain('> 1 change is **blocked** (not done, not counted): apply refuses this plan without `--allow-data-loss` and `--allow-replace`.');
    expect(md).toContain('```mermaid\nflowchart LR');
    expect(md).toContain('| shop &#47; production |'.replace('&#47;', '/'));
  });

  it("lists the plan's problems", () => {
    const { plan } = mixedPlan();
    plan.diagnostics.push({ severity: 'error', code: 'plan.max-destroy', summary: 'The plan destroys 1 resources, more than --max-destroy 0', address: 'x<y>' });
    const md = renderPlanMarkdown(plan);
    expect(md).toContain('> [!CAUTION]\n> - **error**: The plan destroys 1 resources, more than --max-destroy 0 (`x<y>`)');
  });

  it('holds every resource of a big plan: the whole of it on stdout, or parts under the comment limit', () => {
    const m: Manifest = {
      version: 1,
      projects: [
        {
          name: 'big',
          environments: [
            {
              name: 'e',
              cluster: 'production-cluster',
              services: Array.from({ length: 400 }, (_, i) => ({ type: 'container' as const, name: `svc-${i}`, registry: 'docker-hub', image_name: 'nginx', tag: '1', description: 'x'.repeat(100) })),
            },
          ],
        },
      ],
    };
    const plan = computePlan(buildGraph(m).graph, liveFrom({ ...apiRecords(), projects: [], environments: [], services: [], stages: [], variables: {} }), { fingerprintKey: KEY });
    const md = renderPlanMarkdown(plan);
    expect(md).not.toMatch(/not shown|truncated/);
    const services = plan.changes.filter((c) => c.kind === 'container');
    expect(services).toHaveLength(400);
    for (const c of services) expect(md).toContain(`<code>${escapeMarkdown(c.address)}</code>`);
    const parts = renderPlanMarkdownParts(plan);
    expect(parts.length).toBeGreaterThan(1);
    for (const [i, p] of parts.entries()) {
      expect(p.length).toBeLessThan(60_000);
      expect(p.split('\n')[0]).toBe(`### driftless plan (part ${i + 1} of ${parts.length})`);
    }
    expect(parts[0]).toMatch(/^\*\*Plan: 402 to add/m);
    for (const c of services) expect(parts.filter((p) => p.includes(`<code>${escapeMarkdown(c.address)}</code>`))).toHaveLength(1);
    expect(renderDeployMermaid(plan)).toContain('svc-399');
  });
});

describe('a webhook target as people read it (issue 19: `webhook.https:%2F%2Fhooks...` was unreadable)', () => {
  it('the partial plan note of the human and markdown plans names the webhook by its URL', () => {
    const { plan } = mixedPlan();
    const partial: Plan = { ...plan, targets: ['webhook.https:%2F%2Fhooks.example.com%2Fdeploys', 'project.shop'] };
    const human = renderPlanHuman(partial, { palette: createPalette(false) });
    expect(human).toContain('Partial plan: --target webhook.https://hooks.example.com/deploys project.shop.');
    expect(human).toContain('Partial plan (--target): only webhook.https://hooks.example.com/deploys and project.shop,');
    const md = renderPlanMarkdown(partial);
    expect(md).toContain('`webhook.https://hooks.example.com/deploys`');
    for (const text of [human, md]) expect(text).not.toContain('%2F');
  });
});
