/**
 * The manifest schema's per-kind defaults and the kinds' descriptors (src/model/kinds), field by
 * field: what the schema documents (the editor's hover, docs/manifest-reference.md) is what the
 * descriptor says, and what a create that leaves the field out sends (src/apply/bodies.ts) when
 * the request carries the field. The end-to-end side (created on the emulator, then exported):
 * test/e2e/kind-roundtrip.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createBody } from '../../src/apply/bodies.js';
import { IdRegistry } from '../../src/apply/refs.js';
import { RESOURCE_KINDS, kindDescriptor } from '../../src/model/kinds/index.js';
import type { ResourceKind } from '../../src/model/resource.js';

const schema = JSON.parse(readFileSync(new URL('../../schemas/manifest.schema.json', import.meta.url), 'utf8'));
const resolve = (n: any) => (n && typeof n.$ref === 'string' ? schema.definitions[n.$ref.split('/').pop()] : n);

function schemaObjectOf(kind: ResourceKind): any {
  const top: Partial<Record<ResourceKind, unknown>> = {
    organization: schema.properties.organization,
    annotations_group: schema.properties.annotation_groups.items,
    labels_group: schema.properties.label_groups.items,
    alert_receiver: schema.properties.alert_receivers.items,
    alert_rule: schema.properties.alert_rules.items,
    webhook: schema.properties.webhooks.items,
  };
  return resolve(top[kind] ?? schema.definitions[kind]);
}

/** Where a manifest field of a kind is in its create request, when the name differs. */
const REQUEST_PATH: Record<string, string> = {
  'terraform.terraform_action': 'auto_deploy_config.terraform_action',
};

const at = (o: unknown, path: string): unknown => path.split('.').reduce<unknown>((x, k) => (x && typeof x === 'object' ? (x as any)[k] : undefined), o);

for (const kind of RESOURCE_KINDS) {
  const d = kindDescriptor(kind);
  const obj = schemaObjectOf(kind);
  describe(`${kind}: the schema's defaults are the descriptor's`, () => {
    const documented: Array<[string, unknown]> = [];
    for (const [k, v] of Object.entries<any>(obj?.properties ?? {})) {
      const node = resolve(v);
      // driftless's own settings (deploy, prune) are not fields of the kind.
      if (k === 'deploy' || k === 'prune') continue;
      if (node?.default !== undefined) documented.push([k, node.default]);
      // A nested object whose defaults are the kind's (terraform's job_resources).
      else if (node?.type === 'object' && d.manifestDefaults?.[k] !== undefined)
        for (const [sk, sv] of Object.entries<any>(node.properties ?? {})) if (sv?.default !== undefined) documented.push([`${k}.${sk}`, sv.default]);
    }
    const declared: Array<[string, unknown]> = [];
    for (const [k, v] of Object.entries(d.manifestDefaults ?? {})) {
      if (v && typeof v === 'object') for (const [sk, sv] of Object.entries(v)) declared.push([`${k}.${sk}`, sv]);
      else declared.push([k, v]);
    }

    it('the same fields', () => {
      expect(declared.map(([k]) => k).sort()).toEqual(documented.map(([k]) => k).sort());
    });

    for (const [path, value] of declared) {
      it(`${path} = ${JSON.stringify(value)} in the schema`, () => {
        expect(documented.find(([k]) => k === path)?.[1]).toEqual(value);
      });
      const requestPath = REQUEST_PATH[`${kind}.${path}`] ?? path;
      const sentByCreate = at(d.createDefaults, requestPath);
      if (sentByCreate !== undefined) {
        it(`${path}: a create that leaves it out sends ${JSON.stringify(value)}`, () => {
          const refs = new IdRegistry('org', { organizationId: 'org', requestCount: 0, resources: new Map() });
          const body = createBody(kind, { name: 'x' }, { address: `${kind}.x`, refs, fingerprintKey: 'k' });
          expect(at(body, requestPath)).toEqual(value);
        });
      }
    }
  });
}
