import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { looksLikeAddress, narrowGraph, narrowLive, narrowManifest, resolveTargets, targetGraph } from '../../src/graph/target.js';
import type { Manifest } from '../../src/manifest/types.js';
import { SOURCE } from '../../src/manifest/types.js';
import type { LiveResource, LiveState, ResourceKind } from '../../src/model/resource.js';
import { canonicalAddress, readableAddress } from '../../src/model/resource.js';

const STAGING = 'project.shop/environment.staging';
const WEB = `${STAGING}/container.web`;

function manifest(): Manifest {
  const staging: any = {
    name: 'staging',
    cluster: 'c1',
    prune: { services: true },
    services: [{ type: 'container', name: 'web', registry: 'r', image_name: 'n', tag: '1', label_groups: ['team'], variables: [{ key: 'R', alias: 'REGION' }] }],
  };
  Object.defineProperty(staging, SOURCE, { value: { file: 'm.yaml', start: { line: 9, col: 7 } }, enumerable: false });
  return {
    version: 1,
    label_groups: [{ name: 'team', labels: [{ key: 'a', value: 'b' }] }],
    webhooks: [{ target_url: 'https://hooks.example.com/x', events: ['DEPLOYMENT_STARTED'] } as any],
    projects: [
      {
        name: 'shop',
        variables: [{ key: 'REGION', value: 'eu' }, { key: 'OTHER', value: 'x' }],
        prune: { environments: true },
        environments: [{ name: 'prod', cluster: 'c1', services: [{ type: 'container', name: 'web', registry: 'r', image_name: 'n', tag: '1' } as any] }, staging],
      },
    ],
  };
}

const graph = () => buildGraph(manifest()).graph;

function live(address: string, kind: ResourceKind, parent?: string): LiveResource {
  return { address, kind, name: address.split('.').pop()!, ...(parent ? { parent } : {}), id: address, attrs: {}, record: {}, version: '1' };
}

describe('--target: which addresses', () => {
  it('resolves addresses of the manifest in any case of case-insensitive names, each once', () => {
    expect(resolveTargets(graph(), ['project.SHOP/environment.Staging/', STAGING])).toEqual({ targets: [STAGING], diagnostics: [] });
  });

  it('refuses an unknown address with the nearest one and the addresses under the part that exists', () => {
    const { targets, diagnostics } = resolveTargets(graph(), ['project.shop/environment.stagin']);
    expect(targets).toEqual([]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ severity: 'error', code: 'target.unknown', summary: '--target "project.shop/environment.stagin" is not an address of the manifest' });
    expect(diagnostics[0]!.detail).toBe(
      'Did you mean `project.shop/environment.staging`? Known under project.shop: project.shop/variable.REGION, project.shop/variable.OTHER, project.shop/environment.prod, project.shop/environment.staging.',
    );
  });

  it('says how an address is written when the word is not one, and needs at least one address', () => {
    expect(resolveTargets(graph(), ['shop']).diagnostics[0]!.summary).toContain('an address is `kind.name` segments joined by `/`');
    expect(resolveTargets(graph(), []).diagnostics[0]!.code).toBe('target.none');
    expect(targetGraph(graph(), ['nope.x']).graph).toBeUndefined();
  });

  it('tells an address from a manifest path', () => {
    expect(looksLikeAddress(STAGING)).toBe(true);
    expect(looksLikeAddress('organization')).toBe(true);
    expect(looksLikeAddress('webhook.https:%2F%2Fx')).toBe(true);
    expect(looksLikeAddress('infra/prod.yaml')).toBe(false);
    expect(looksLikeAddress('examples/realistic')).toBe(false);
  });
});

describe('narrowGraph', () => {
  it('keeps the target subtree, its ancestors and what it depends on, nothing else', () => {
    const { graph: g } = narrowGraph(graph(), [STAGING]);
    expect([...g.resources.keys()].sort()).toEqual(['labels_group.team', 'project.shop', 'project.shop/variable.REGION', STAGING, WEB, `${WEB}/variable.R`].sort());
    // Order stays topological: the original order filtered.
    expect(g.order.indexOf('project.shop')).toBeLessThan(g.order.indexOf(STAGING));
    expect(g.order.indexOf('project.shop/variable.REGION')).toBeLessThan(g.order.indexOf(`${WEB}/variable.R`));
  });

  it('keeps the pruning of a target, removes the pruning and ownership of what is kept for it, and prunes nothing at the top', () => {
    const full = graph();
    full.prune = ['webhook'];
    const { graph: g } = narrowGraph(full, [STAGING]);
    expect(g.resources.get(STAGING)!.prune).toEqual(full.resources.get(STAGING)!.prune);
    expect(g.resources.get('project.shop')!.prune).toBeUndefined();
    expect(g.resources.get('project.shop')!.owns).toBeUndefined();
    expect(full.resources.get('project.shop')!.prune).toEqual(['environment']);
    expect(g.prune).toBeUndefined();
    expect(g.scope).toBe('declared');
  });
});

describe('narrowLive', () => {
  it('drops what the reads brought from outside the targets, keeps what names are resolved through', () => {
    const { scope } = narrowGraph(graph(), [WEB]);
    const all: LiveResource[] = [
      live('project.shop', 'project'),
      live('project.shop/variable.OTHER', 'variable', 'project.shop'),
      live('project.shop/variable.REGION', 'variable', 'project.shop'),
      live('project.shop/environment.prod', 'environment', 'project.shop'),
      live('project.shop/environment.preview', 'environment', 'project.shop'),
      live(STAGING, 'environment', 'project.shop'),
      live(`${STAGING}/container.old`, 'container', STAGING),
      live(`${WEB}`, 'container', STAGING),
      live(`${WEB}/variable.UNDECLARED`, 'variable', WEB),
      live('cluster.c1', 'cluster'),
      live('labels_group.other', 'labels_group'),
      live('webhook.https:%2F%2Fother', 'webhook'),
      live('project.other', 'project'),
    ];
    const state: LiveState = { organizationId: 'o', requestCount: 3, resources: new Map(all.map((l) => [l.address, l])) };
    const kept = narrowLive(state, scope);
    expect([...kept.resources.keys()].sort()).toEqual(
      ['project.shop', 'project.shop/variable.REGION', STAGING, WEB, `${WEB}/variable.UNDECLARED`, 'cluster.c1', 'labels_group.other'].sort(),
    );
    expect(kept.requestCount).toBe(3);
  });
});

describe('narrowManifest', () => {
  it('keeps the kept projects, environments and services for the checks, with their source ranges', () => {
    const m = manifest();
    const { scope } = narrowGraph(buildGraph(m).graph, [STAGING]);
    const n = narrowManifest(m, scope);
    expect(n.projects!.map((p) => p.environments!.map((e) => e.name))).toEqual([['staging']]);
    const env = n.projects![0]!.environments![0]!;
    expect(env.services!.map((s) => s.name)).toEqual(['web']);
    expect((env as any)[SOURCE]).toEqual({ file: 'm.yaml', start: { line: 9, col: 7 } });
    // The input is not changed.
    expect(m.projects![0]!.environments!.map((e) => e.name)).toEqual(['prod', 'staging']);
  });
});

describe('a webhook address as plan shows it (issue 19: `webhook.https:%2F%2Fhooks...` was unreadable)', () => {
  it('reads as its URL, and --target takes it in either form', () => {
    const canonical = 'webhook.https:%2F%2Fhooks.example.com%2Fx';
    expect(readableAddress(canonical)).toBe('webhook.https://hooks.example.com/x');
    expect(readableAddress(WEB)).toBe(WEB);
    expect(canonicalAddress('webhook.https://hooks.example.com/x')).toBe(canonical);
    expect(canonicalAddress(canonical)).toBe(canonical);
    for (const word of ['webhook.https://hooks.example.com/x', canonical]) {
      const r = resolveTargets(graph(), [word]);
      expect(r.diagnostics).toEqual([]);
      expect(r.targets).toEqual([canonical]);
    }
  });
});
