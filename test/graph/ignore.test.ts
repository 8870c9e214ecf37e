/**
 * `ignore_changes` in the graph: the manifest's paths become attr paths and deploy pins, and once
 * an object exists its ignored paths hold the live value (or nothing: a secret, a field live lacks).
 * The table of paths agrees with the manifest schema: every path names a property of that kind,
 * and the schema's description of `ignore_changes` lists exactly the paths validate accepts.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { afterCreation, ignoreChangesOf, ignoredFields } from '../../src/graph/ignore.js';
import { manifestSchema } from '../../src/manifest/index.js';
import type { Manifest } from '../../src/manifest/types.js';
import { ignorablePaths } from '../../src/model/ignore-paths.js';
import { kindsWhere } from '../../src/model/kinds/index.js';
import type { DesiredResource, ResourceKind } from '../../src/model/resource.js';
import { SecretValue } from '../../src/model/secret.js';

const container = (ignore: string[] | 'all'): Manifest =>
  ({
    version: 1,
    projects: [
      {
        name: 'p',
        environments: [
          {
            name: 'e',
            cluster: 'c',
            services: [
              {
                type: 'container',
                name: 'web',
                registry: 'docker-hub',
                image_name: 'nginx',
                tag: '1.0',
                cpu: 500,
                healthchecks: { readiness_probe: { type: { tcp: { port: 80 } } } },
                ignore_changes: ignore,
                variables: [{ key: 'K', value: new SecretValue('s3cret'), secret: true, description: 'd', ignore_changes: ['value'] }],
              },
            ],
          },
        ],
      },
    ],
  }) as Manifest;

function resource(m: Manifest, address: string): DesiredResource {
  const { graph, diagnostics } = buildGraph(m);
  expect(diagnostics).toEqual([]);
  return graph.resources.get(address)!;
}

const WEB = 'project.p/environment.e/container.web';

describe('ignoreChangesOf', () => {
  it('maps manifest paths onto attr paths and deploy pins', () => {
    const d = resource(container(['tag', 'healthchecks.readiness_probe']), WEB);
    expect(d.ignoreChanges).toEqual({ fields: ['tag', 'healthchecks.readiness_probe'], attrPaths: ['tag', 'healthchecks.readiness_probe'], pins: ['image_tag'] });
    expect(ignoreChangesOf('terraform', ['auto_deploy', 'git_repository.branch', 'tf_vars'], {}, undefined)).toEqual({
      fields: ['auto_deploy', 'git_repository.branch', 'tf_vars'],
      attrPaths: ['auto_deploy_config.auto_deploy', 'terraform_files_source.git_repository.branch', 'terraform_variables_source.tf_vars'],
      pins: [],
    });
    expect(ignoreChangesOf('application', ['git_commit_id'], {}, { git_commit_id: 'abc' })).toEqual({ fields: ['git_commit_id'], attrPaths: [], pins: ['git_commit_id'] });
  });

  it('`all` ignores every attr but the identity, and every pin', () => {
    const d = resource(container('all'), WEB);
    expect(d.ignoreChanges?.all).toBe(true);
    expect(ignoredFields(d)).toEqual(['registry', 'image_name', 'tag', 'cpu', 'healthchecks']);
    expect(d.ignoreChanges?.pins).toEqual(['image_tag']);
    // The organization has no identity attr: its name is ignored too.
    expect(ignoreChangesOf('organization', 'all', { name: 'acme', description: 'd' }, undefined)?.attrPaths).toEqual(['name', 'description']);
  });

  it('is absent without ignore_changes', () => {
    expect(ignoreChangesOf('container', undefined, { tag: '1' }, undefined)).toBeUndefined();
  });
});

describe('afterCreation', () => {
  it('gives ignored paths their live value, keeps the rest as the manifest says, and drops ignored pins', () => {
    const d = resource(container(['tag', 'healthchecks.readiness_probe']), WEB);
    const liveProbe = { type: { http: { path: '/', scheme: 'HTTP', port: 80 } } };
    const o = afterCreation(d, { tag: '2.0', cpu: 1000, healthchecks: { readiness_probe: liveProbe, liveness_probe: null } });
    expect(o.attrs.tag).toBe('2.0');
    expect(o.attrs.cpu).toBe(500);
    expect((o.attrs.healthchecks as Record<string, unknown>).readiness_probe).toEqual(liveProbe);
    expect((o.attrs.healthchecks as Record<string, unknown>).liveness_probe).toBeNull();
    expect(o.deploy).toBeUndefined();
    // The graph's resource (what a create writes) is untouched.
    expect(d.attrs.tag).toBe('1.0');
    expect(d.deploy).toEqual({ image_tag: '1.0' });
  });

  it('leaves out an ignored path the live object lacks, and an ignored secret (never read back)', () => {
    const d = resource(container(['cpu']), WEB);
    expect('cpu' in afterCreation(d, { tag: '1.0' }).attrs).toBe(false);
    const v = resource(container(['cpu']), `${WEB}/variable.K`);
    const o = afterCreation(v, { key: 'K', value: 'whatever the API says', description: 'd' });
    expect('value' in o.attrs).toBe(false);
    expect(o.attrs.description).toBe('d');
  });

  it('returns the object itself when nothing is ignored', () => {
    const m = container(['cpu']);
    const d = resource(m, 'project.p');
    expect(afterCreation(d, {})).toBe(d);
  });
});

/** Where each kind's object is described in the manifest schema. */
function schemaOf(kind: ResourceKind): Record<string, unknown> {
  const s = manifestSchema() as { properties: Record<string, any>; definitions: Record<string, any> };
  const top: Partial<Record<ResourceKind, unknown>> = {
    organization: s.properties.organization,
    annotations_group: s.properties.annotation_groups.items,
    labels_group: s.properties.label_groups.items,
    alert_receiver: s.properties.alert_receivers.items,
    alert_rule: s.properties.alert_rules.items,
    webhook: s.properties.webhooks.items,
  };
  return (top[kind] ?? s.definitions[kind]) as Record<string, unknown>;
}

function resolve(node: any): any {
  if (node && typeof node.$ref === 'string') return resolve((manifestSchema() as any).definitions[node.$ref.split('/').pop()]);
  return node;
}

describe('the table of paths and the schema', () => {
  for (const kind of kindsWhere((d) => d.ignorePaths !== undefined)) {
    it(`${kind}: every path names a property, and the schema lists exactly these paths`, () => {
      const obj = schemaOf(kind);
      for (const path of ignorablePaths(kind)) {
        let node: any = obj;
        for (const seg of path.split('.')) {
          node = resolve(node)?.properties?.[seg];
          expect(node, `${kind}: ${path}`).toBeDefined();
        }
      }
      const description = String((obj as any).properties.ignore_changes.description);
      const listed = [...description.slice(description.indexOf('Allowed paths:')).matchAll(/`([^`]+)`/g)].map((x) => x[1]);
      expect(listed).toEqual(ignorablePaths(kind));
    });
  }
});
