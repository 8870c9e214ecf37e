import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifest, manifestSchema, manifestSchemaPath } from '../../src/manifest/index.js';
import { newManifestAjv } from '../../src/manifest/schema-validate.js';
import { cronProblem } from '../../src/manifest/cron.js';
import { timeZoneProblem } from '../../src/manifest/timezone.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');

type SchemaNode = Record<string, unknown>;

/** Every schema object reachable in the document, with its JSON pointer. */
function walk(node: unknown, at: string, visit: (n: SchemaNode, at: string) => void): void {
  if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`, visit));
  if (node === null || typeof node !== 'object') return;
  visit(node as SchemaNode, at);
  for (const [k, v] of Object.entries(node)) if (k !== 'enum' && k !== 'default' && k !== 'const' && k !== 'examples') walk(v, `${at}/${k}`, visit);
}

describe('schemas/manifest.schema.json', () => {
  const schema = manifestSchema();

  it('is the file the loader uses', () => {
    expect(manifestSchemaPath()).toBe(path.join(repoRoot, 'schemas', 'manifest.schema.json'));
  });

  it('describes every property (editors show it on hover)', () => {
    const missing: string[] = [];
    walk(schema, '#', (n, at) => {
      const props = n.properties as Record<string, SchemaNode> | undefined;
      if (props && !/\/if(\/|$)/.test(at)) for (const [k, p] of Object.entries(props)) if (typeof p.description !== 'string' || p.description.length < 3) missing.push(`${at}/properties/${k}`);
    });
    expect(missing).toEqual([]);
  });

  it('titles every property and every object a user writes (editors show the title on hover and completion)', () => {
    const missing: string[] = [];
    const titled = (n: SchemaNode) => typeof n.title === 'string' && n.title.length >= 2;
    walk(schema, '#', (n, at) => {
      if (/\/(if|then)(\/|$)/.test(at)) return;
      if (n.properties && !titled(n)) missing.push(at);
      for (const [k, p] of Object.entries((n.properties as Record<string, SchemaNode> | undefined) ?? {})) if (!titled(p)) missing.push(`${at}/properties/${k}`);
    });
    for (const [d, s] of Object.entries(schema.definitions as Record<string, SchemaNode>)) if (!titled(s)) missing.push(`#/definitions/${d}`);
    expect(missing).toEqual([]);
  });

  it('gives examples that the schema accepts, and driftless too (cron schedules, time zones)', () => {
    const withExamples: Array<{ at: string; examples: unknown[] }> = [];
    walk(schema, '#', (n, at) => {
      if (n.examples !== undefined) withExamples.push({ at, examples: n.examples as unknown[] });
    });
    const ajv = newManifestAjv();
    ajv.addSchema(schema);
    const bad: string[] = [];
    for (const { at, examples } of withExamples) {
      expect(Array.isArray(examples) && examples.length > 0, at).toBe(true);
      const validate = ajv.compile({ $ref: `${String(schema.$id)}${at}` });
      for (const ex of examples) if (!validate(ex)) bad.push(`${at}: ${JSON.stringify(ex)} ${ajv.errorsText(validate.errors)}`);
    }
    expect(bad).toEqual([]);

    const examplesAt = (at: string) => withExamples.find((x) => x.at === at)?.examples ?? [];
    const cron = '#/definitions/job/properties/schedule/properties/cron/properties';
    expect(examplesAt(`${cron}/scheduled_at`).length).toBeGreaterThan(1);
    for (const ex of examplesAt(`${cron}/scheduled_at`)) expect(cronProblem(String(ex)), String(ex)).toBeUndefined();
    expect(examplesAt(`${cron}/timezone`).length).toBeGreaterThan(1);
    for (const ex of examplesAt(`${cron}/timezone`)) expect(timeZoneProblem(String(ex)), String(ex)).toBeUndefined();
    // The placeholders that keep values out of Git are shown where they are most used.
    expect(examplesAt('#/definitions/variable/properties/value')).toContainEqual(expect.stringMatching(/^\$\{env:[A-Z_]+\}$/));
    expect(examplesAt('#/definitions/container/properties/tag')).toContainEqual(expect.stringMatching(/\$\{env:/));
    expect(examplesAt('#/definitions/environment/properties/cluster').length).toBeGreaterThan(0);
  });

  it('closes every object: a typo is an error', () => {
    const open: string[] = [];
    walk(schema, '#', (n, at) => {
      if (n.properties && !at.includes('/if') && !at.includes('/then') && n.additionalProperties !== false) open.push(at);
    });
    expect(open).toEqual([]);
  });

  it('gives explicit defaults for the fields the API defaults', () => {
    const defs = schema.definitions as Record<string, SchemaNode>;
    const props = (d: string) => defs[d]!.properties as Record<string, SchemaNode>;
    expect(props('application').cpu!.default).toBe(500);
    expect(props('application').memory!.default).toBe(512);
    expect(props('database').accessibility!.default).toBe('PRIVATE');
    expect(props('environment').mode!.default).toBe('DEVELOPMENT');
    expect(props('variable').secret!.default).toBe(false);
    expect(props('port').protocol!.default).toBe('HTTP');
  });

  it('takes enums from the API spec', () => {
    const defs = schema.definitions as Record<string, SchemaNode>;
    const props = (d: string) => defs[d]!.properties as Record<string, SchemaNode>;
    expect(props('database').database_type!.enum).toEqual(['MONGODB', 'MYSQL', 'POSTGRESQL', 'REDIS']);
    expect(props('database').mode!.enum).toEqual(['CONTAINER', 'MANAGED']);
    expect(props('database').disk_type!.enum).toEqual(['gp2', 'gp3']);
  });

  it('rejects names with path separators, control characters or template syntax', () => {
    const pattern = new RegExp(((schema.definitions as Record<string, SchemaNode>).name!.pattern as string), 'u');
    for (const ok of ['shop', 'my shop', 'api-v2', 'café', 'db.primary']) expect(pattern.test(ok), ok).toBe(true);
    for (const bad of ['a/b', 'a\\b', 'a\nb', 'a\u001b[31m', '${env:X}', '{{x}}', ' lead', 'trail ', 'bidi\u202e', 'zero\u200bwidth', 'line\u2028sep', '\ufeffbom']) expect(pattern.test(bad), JSON.stringify(bad)).toBe(false);
  });
});

describe('examples', () => {
  const examples = readdirSync(path.join(repoRoot, 'examples'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && !['github-actions', 'gitlab-ci'].includes(d.name))
    .map((d) => d.name);

  it('include minimal, realistic and platform', () => {
    expect(examples).toEqual(expect.arrayContaining(['minimal', 'realistic', 'platform']));
  });

  it.each(examples)('%s validates without errors or warnings', async (name) => {
    const env = { STRIPE_API_KEY: 'sk_test_x', SESSION_SECRET: 's', SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/X', WEBHOOK_SIGNING_SECRET: 'w', STRIPE_TEST_SECRET_KEY: 'sk_test_y', STRIPE_LIVE_SECRET_KEY: 'sk_live_z' };
    const r = await loadManifest([`examples/${name}`], { env, cwd: repoRoot });
    expect(r.diagnostics).toEqual([]);
    expect(r.manifest).toBeDefined();
  });

  it.each(examples)('%s points editors at the schema from every file', (name) => {
    const dir = path.join(repoRoot, 'examples', name);
    for (const f of readdirSync(dir).filter((x) => /\.ya?ml$/.test(x))) {
      const first = readFileSync(path.join(dir, f), 'utf8').split('\n')[0]!;
      const m = /^# yaml-language-server: \$schema=(.+)$/.exec(first);
      expect(m, `${name}/${f}`).not.toBeNull();
      expect(existsSync(path.resolve(dir, m![1]!))).toBe(true);
    }
  });

  it('realistic covers what the issue asks for', async () => {
    const env = { STRIPE_API_KEY: 'sk_test_x', SESSION_SECRET: 's', SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/X', WEBHOOK_SIGNING_SECRET: 'w' };
    const r = await loadManifest(['examples/realistic'], { env, cwd: repoRoot });
    const m = r.manifest!;
    expect(r.files.length).toBeGreaterThan(1);
    const envs = m.projects!.flatMap((p) => p.environments ?? []);
    expect(envs).toHaveLength(2);
    const types = new Set(envs.flatMap((e) => e.services ?? []).map((s) => s.type));
    expect([...types].sort()).toEqual(['application', 'container', 'database', 'job']);
    const vars = [...m.projects!.flatMap((p) => p.variables ?? []), ...envs.flatMap((e) => [...(e.variables ?? []), ...(e.services ?? []).flatMap((s) => ('variables' in s ? s.variables ?? [] : []))])];
    expect(vars.some((v) => v.mount_path)).toBe(true);
    expect(vars.some((v) => v.alias)).toBe(true);
    expect(vars.some((v) => v.override)).toBe(true);
    expect(vars.some((v) => v.external_secret)).toBe(true);
    expect(vars.some((v) => v.secret)).toBe(true);
    expect(envs.some((e) => (e.deployment_stages ?? []).length >= 2)).toBe(true);
    expect(m.annotation_groups).toHaveLength(1);
    expect(m.alert_receivers).toHaveLength(1);
    expect(m.alert_rules).toHaveLength(1);
    expect(m.webhooks).toHaveLength(1);
  });
});
