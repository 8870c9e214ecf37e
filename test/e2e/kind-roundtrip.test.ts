/**
 * Generated from the kinds' registry (src/model/kinds) and their samples
 * (test/fixtures/kind-samples.ts), against the real emulator over HTTP:
 *
 * - the round trip: for every kind, a manifest object with every field set -> plan -> apply ->
 *   export gives the object back, and a plan of the manifest after it is clean;
 * - the defaults: for every kind and every field the manifest schema documents a default for, an
 *   object created without the field is exported with the schema's default (export either writes
 *   it, equal to the default, or leaves it out because it is the default). The schema is read as the
 *   editor reads it (schemas/manifest.schema.json), not through the descriptors.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { RESOURCE_KINDS, kindDescriptor } from '../../src/model/kinds/index.js';
import type { ResourceKind } from '../../src/model/resource.js';
import { KIND_SAMPLES, SAMPLE_SECRETS, isSample, sampleManifest, type Doc, type KindSample } from '../fixtures/kind-samples.js';
import { FAST, startHarness, type Harness } from './helpers.js';

/** Child lists and driftless's own settings: not fields of the object itself. */
const NOT_FIELDS = new Set(['variables', 'environments', 'services', 'deployment_stages', 'protect']);

/** `${env:...}` placeholders compare equal whatever the name export gives them. */
function comparable(v: unknown): unknown {
  if (typeof v === 'string') return /^\$\{env:[A-Za-z0-9_]+\}$/.test(v) ? '(secret placeholder)' : v;
  if (Array.isArray(v)) return v.map(comparable);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => !NOT_FIELDS.has(k)).map(([k, x]) => [k, comparable(x)]));
  return v;
}

/** The object of a sample in a manifest (exported or written). */
function find(m: Doc, sample: KindSample, which: 'full' | 'minimal'): Doc | undefined {
  const projects = (m.projects as Doc[] | undefined) ?? [];
  const project = projects.find((p) => p.name === (which === 'full' ? 'shop' : 'mini'));
  const env = ((project?.environments as Doc[] | undefined) ?? [])[0];
  const id = sample[which][sample.identity];
  const inList = (list: unknown) => ((list as Doc[] | undefined) ?? []).find((x) => x[sample.identity] === id);
  switch (sample.at) {
    case 'organization':
      return m.organization as Doc | undefined;
    case 'projects':
      return project;
    case 'environments':
      return env;
    case 'deployment_stages':
    case 'services':
      return inList(env?.[sample.at]);
    case 'variables':
      return inList((which === 'full' ? project : env)?.variables);
    default:
      return inList(m[sample.at]);
  }
}

/** The schema's object for a kind, as an editor resolves it. */
function schemaObjectOf(kind: ResourceKind, schema: any): any {
  const top: Partial<Record<ResourceKind, unknown>> = {
    organization: schema.properties.organization,
    annotations_group: schema.properties.annotation_groups.items,
    labels_group: schema.properties.label_groups.items,
    alert_receiver: schema.properties.alert_receivers.items,
    alert_rule: schema.properties.alert_rules.items,
    webhook: schema.properties.webhooks.items,
  };
  return top[kind] ?? schema.definitions[kind];
}

/** Every documented default of a kind's fields, one level of nested objects included: [path, default]. */
function documentedDefaults(kind: ResourceKind, schema: any): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  const resolve = (n: any) => (n && typeof n.$ref === 'string' ? schema.definitions[n.$ref.split('/').pop()] : n);
  const obj = resolve(schemaObjectOf(kind, schema));
  for (const [k, v] of Object.entries<any>(obj?.properties ?? {})) {
    // `deploy: true` and `prune` are driftless's own settings, not fields of the API object.
    if (k === 'deploy' || k === 'prune') continue;
    const node = resolve(v);
    if (node?.default !== undefined) out.push([k, node.default]);
    else if (node?.type === 'object') for (const [sk, sv] of Object.entries<any>(node.properties ?? {})) if (sv?.default !== undefined) out.push([`${k}.${sk}`, sv.default]);
  }
  return out;
}

function at(doc: Doc | undefined, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Doc)[k] : undefined), doc);
}

const schema = JSON.parse(readFileSync(new URL('../../schemas/manifest.schema.json', import.meta.url), 'utf8'));
const SAMPLED = RESOURCE_KINDS.filter((k) => isSample(KIND_SAMPLES[k]));

let h: Harness;
let exported: Doc;
let applyOut = '';
let planAfter = { code: -1, stdout: '', stderr: '' };

beforeAll(async () => {
  h = await startHarness();
  h.write({ 'm/driftless.yaml': YAML.stringify(sampleManifest()) });
  const v = await h.run(['validate', 'm'], { env: SAMPLE_SECRETS });
  expect(v.code, v.stdout + v.stderr).toBe(0);
  const a = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: SAMPLE_SECRETS });
  applyOut = a.stdout + a.stderr;
  expect(a.code, applyOut).toBe(0);
  const e = await h.run(['export', '--out', 'exported.yaml'], { env: SAMPLE_SECRETS });
  expect(e.code, e.stderr).toBe(0);
  exported = YAML.parse(readFileSync(join(h.dir, 'exported.yaml'), 'utf8')) as Doc;
  planAfter = await h.run(['plan', 'm', '--detailed-exitcode'], { env: SAMPLE_SECRETS });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('every kind has a sample or says why it has none', () => {
  it('covers every kind of the registry', () => {
    for (const k of RESOURCE_KINDS) expect(kindDescriptor(k).kind).toBe(k);
    expect(SAMPLED.length).toBeGreaterThanOrEqual(15);
  });
});

describe('round trip: a manifest with every field set -> apply -> export gives it back', () => {
  for (const kind of SAMPLED) {
    it(kind, () => {
      const sample = KIND_SAMPLES[kind] as KindSample;
      const got = find(exported, sample, 'full');
      expect(got, `${kind} in the export`).toBeDefined();
      expect(comparable(got)).toEqual(comparable(sample.full));
    });
  }

  it('and a plan after it is clean, without a secret on any output', () => {
    expect(planAfter.stdout.trimEnd().split('\n').pop(), planAfter.stdout + planAfter.stderr).toMatch(/^No changes\./);
    expect(planAfter.code).toBe(0);
    for (const out of [applyOut, planAfter.stdout + planAfter.stderr]) expect(out).not.toContain(SAMPLE_SECRETS.SAMPLE_SECRET);
  });
});

describe('defaults: an object created without a field is exported with the default the schema documents', () => {
  for (const kind of SAMPLED) {
    for (const [path, dflt] of documentedDefaults(kind, schema)) {
      const sample = KIND_SAMPLES[kind] as KindSample;
      // Fields a minimal object cannot leave out: a type-specific field of another type (a SLACK
      // receiver's require_tls is no field of it), a nested object that is absent as a whole.
      it(`${kind}.${path} = ${JSON.stringify(dflt)}`, () => {
        expect(at(sample.minimal, path), 'the minimal sample leaves the field out').toBeUndefined();
        const got = find(exported, sample, 'minimal');
        expect(got, `${kind} in the export`).toBeDefined();
        const value = at(got, path);
        if (value !== undefined) expect(value).toEqual(dflt);
        // Left out: only as a structural detail (a nested part, such as a condition's operator), or
        // as a field of a kind whose settings an export does not own at their default.
        else if (!path.includes('.')) expect(kindDescriptor(kind).exportWritesDefaults, `${kind}.${path}: left out of an export that owns the settings of ${kind}`).toBeUndefined();
      });
    }
  }
});
