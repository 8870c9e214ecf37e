/**
 * A kind's two manifest-side mappings are in its descriptor (issue 22), for the kinds that are not
 * services as for the services: manifest -> attrs (`attrsFromManifest`; a service kind's
 * `service.fromManifest`) and attrs -> manifest (`toManifestDoc`; `service.toManifest`). The graph
 * (src/graph/build.ts, variables.ts) keeps only the walk and the export (src/export/to-manifest.ts)
 * only the assembly of the document, so a kind whose descriptor lost a mapping, or a field of
 * one, fails here, and a mapping written back into a stage fails the last two tests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RESOURCE_KINDS, descriptors, isServiceKind, kindDescriptor } from '../../src/model/kinds/index.js';
import type { KindDescriptor } from '../../src/model/kinds/descriptor.js';
import type { LiveResource, ResourceKind } from '../../src/model/resource.js';
import { SecretValue } from '../../src/model/secret.js';
import { EnvRef, type ExportContext } from '../../src/export/manifest-helpers.js';
import { PlaceholderAllocator } from '../../src/export/placeholders.js';
import { KIND_SAMPLES, isSample, type Doc, type KindSample } from '../fixtures/kind-samples.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const source = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** Kinds a manifest has no key for: read live only, for the names services give them. */
const LIVE_ONLY = new Set<ResourceKind>(['container_registry', 'helm_repository']);
/** Kinds a manifest names (and may upgrade) but an export never writes: clusters exist in the organization. */
const NEVER_EXPORTED = new Set<ResourceKind>(['cluster', ...LIVE_ONLY]);

const plainKinds = RESOURCE_KINDS.filter((k) => !isServiceKind(k));
const sampled = plainKinds.filter((k) => isSample(KIND_SAMPLES[k]));

/** Secrets compare equal whatever their placeholder's name; sets of names whatever their order. */
function comparable(v: unknown): unknown {
  if (v instanceof EnvRef || (typeof v === 'string' && /^\$\{env:[A-Za-z0-9_]+\}$/.test(v))) return '(secret)';
  if (Array.isArray(v)) return v.every((x) => typeof x === 'string') ? [...v].sort() : v.map(comparable);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, comparable(x)]));
  return v;
}

/**
 * The live object the API gives back for desired attrs: without the secrets (the API never returns
 * them), with their fingerprints as driftless keeps them after writing them, and the flag the API
 * sets on a webhook that has a signing secret.
 */
function liveOf(kind: ResourceKind, name: string, attrs: Record<string, unknown>, sensitive: readonly string[]): LiveResource {
  const live = Object.fromEntries(Object.entries(attrs).filter(([, v]) => !(v instanceof SecretValue)));
  return {
    address: `${kind}.${name}`,
    kind,
    name,
    id: 'id-1',
    attrs: live,
    record: { target_secret_set: attrs.target_secret !== undefined },
    version: '1',
    fingerprints: Object.fromEntries(sensitive.map((f) => [f, 'fp'])),
  };
}

describe('the manifest-side mappings of every kind are in its descriptor', () => {
  it('every kind a manifest declares has both (a service kind in `service`), in one place only', () => {
    for (const kind of RESOURCE_KINDS) {
      const d = descriptors()[kind] as KindDescriptor & { service?: { fromManifest?: unknown; toManifest?: unknown } };
      if (isServiceKind(kind)) {
        expect(typeof d.service?.fromManifest, kind).toBe('function');
        expect(typeof d.service?.toManifest, kind).toBe('function');
        expect(d.attrsFromManifest, kind).toBeUndefined();
        expect(d.toManifestDoc, kind).toBeUndefined();
      } else {
        expect(typeof d.attrsFromManifest, kind).toBe(LIVE_ONLY.has(kind) ? 'undefined' : 'function');
        expect(typeof d.toManifestDoc, kind).toBe(NEVER_EXPORTED.has(kind) ? 'undefined' : 'function');
      }
    }
    // Every kind with a manifest sample is declared and exported (test/fixtures/kind-samples.ts).
    expect(sampled.filter((k) => NEVER_EXPORTED.has(k))).toEqual([]);
    expect(sampled.length).toBe(10);
  });

  it.each(sampled.flatMap((k) => (['full', 'minimal'] as const).map((which) => [k, which] as const)))(
    '%s (%s sample): manifest -> attrs -> manifest gives the object back',
    (kind, which) => {
      const sample = KIND_SAMPLES[kind] as KindSample;
      const spec = sample[which];
      const d = kindDescriptor(kind);
      const secretsOf = (o: Doc): Doc => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'string' && v.startsWith('${env:') ? new SecretValue('s3cret') : v]));
      const built = d.attrsFromManifest!(secretsOf(spec) as never, {});
      const name = String(spec[sample.identity] ?? 'organization');
      const ctx: ExportContext = { children: new Map(), secrets: new PlaceholderAllocator(), warnings: [] };
      const doc = d.toManifestDoc!(liveOf(kind, name, built.attrs, built.sensitiveFields ?? []), ctx, [name]);
      expect(ctx.warnings).toEqual([]);
      // Defaults an export leaves out are not in the samples: what comes back is what was written.
      expect(comparable(doc)).toEqual(comparable(spec));
    },
  );

  it('the graph keeps the walk: build.ts and addVariables build no attrs of those kinds', () => {
    // put, desc, sortedSet, compact: the attrs builders a per-kind mapping needs.
    for (const f of ['src/graph/build.ts', 'src/graph/variables.ts']) expect(source(f), f).not.toMatch(/from '\.\/attrs\.js'/);
    const assignments = /\battrs(\.\w+|\[[^\]]+\])\s*=(?!=)/g;
    expect(source('src/graph/build.ts').match(assignments) ?? []).toEqual([]);
    const addVariables = /export function addVariables[\s\S]*?\n}\n/.exec(source('src/graph/variables.ts'))?.[0];
    expect(addVariables).toBeDefined();
    expect(addVariables!.match(assignments) ?? []).toEqual([]);
  });

  it('the export assembles: to-manifest.ts reads none of those kinds\' own fields', () => {
    const text = source('src/export/to-manifest.ts');
    // What the assembly itself needs: a service's name and description, and an environment's mode
    // (a PRODUCTION one is exported with `protect: true`).
    const assembly = new Set(['name', 'description', 'mode']);
    for (const kind of plainKinds) {
      const d = kindDescriptor(kind);
      const sample = KIND_SAMPLES[kind];
      const fields = new Set([...(d.requestFields ?? []), ...Object.keys(d.ignorePaths ?? {}), ...(isSample(sample) ? Object.keys(sample.full) : [])]);
      for (const f of [...fields].filter((x) => !assembly.has(x) && /^\w+$/.test(x))) {
        expect(text, `${kind}.${f}`).not.toMatch(new RegExp(`\\b(attrs|a)\\.${f}\\b`));
      }
      expect(text, kind).not.toContain(`withoutDefaults('${kind}'`);
    }
    // A secret's placeholder is the kind's business (its descriptor names it).
    expect(text).not.toContain('new EnvRef(');
  });
});
