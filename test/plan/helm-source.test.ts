/**
 * A helm service's chart repository, by name in the manifest and by id in the API: live reading
 * of the real HelmResponse source (and the request shape, defensively), request bodies that
 * resolve the name to the repository's id, and the plan's error for a name the organization lacks.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { computePlan } from '../../src/plan/compute.js';
import { planHasChanges } from '../../src/plan/types.js';
import { buildLiveLookup } from '../../src/live/normalize.js';
import { helmSource } from '../../src/live/record-helpers.js';
import { createBody, updateBody } from '../../src/apply/bodies.js';
import { IdRegistry, UnresolvedReferenceError } from '../../src/apply/refs.js';
import { orgListsNeeded } from '../../src/live/read.js';
import { checkOrganizationReferences, checkReferences } from '../../src/manifest/references.js';
import { referenceContextOfLive } from '../../src/manifest/remote-names.js';
import type { HelmSpec, Manifest } from '../../src/manifest/types.js';
import { KEY, apiRecords, fullManifest, id, liveFrom } from './fixtures.js';

const lookup = buildLiveLookup({ helmRepositories: [{ id: 'repo-1', name: 'bitnami' }] });

describe('live helm source -> attrs', () => {
  it('reads the real response shape: the repository by its embedded name', () => {
    const src = { repository: { chart_name: 'redis', chart_version: 19, repository: { id: 'repo-1', name: 'charts-renamed', url: 'https://x' } } };
    expect(helmSource(src, lookup)).toEqual({ helm_repository: { repository: 'charts-renamed', chart_name: 'redis', chart_version: '19' } });
    // No embedded name: the lookup's, else an id that stays visible (and diffs).
    expect(helmSource({ repository: { chart_name: 'redis', chart_version: '1', repository: { id: 'repo-1' } } }, lookup).helm_repository!.repository).toBe('bitnami');
    expect(helmSource({ repository: { chart_name: 'redis', chart_version: '1', repository: { id: 'gone' } } }, lookup).helm_repository!.repository).toBe('(unknown id gone)');
  });

  it('reads a git source from {git: {git_repository}}', () => {
    const git = { url: 'https://github.com/acme/charts.git', branch: 'main', root_path: '/redis' };
    expect(helmSource({ git: { git_repository: git } }, lookup)).toEqual({ git_repository: git });
  });

  it('still reads the request shape: a repository id through the lookup, or a name as given', () => {
    expect(helmSource({ helm_repository: { repository: 'repo-1', chart_name: 'redis', chart_version: '1' }, git_repository: null }, lookup).helm_repository!.repository).toBe('bitnami');
    expect(helmSource({ helm_repository: { repository: 'bitnami', chart_name: 'redis', chart_version: '1' } }, lookup).helm_repository!.repository).toBe('bitnami');
    expect(helmSource({ git_repository: { url: 'u' }, helm_repository: null }, lookup)).toEqual({ git_repository: { url: 'u' } });
    expect(helmSource(undefined, lookup)).toEqual({});
  });
});

describe('request bodies', () => {
  const live = liveFrom(apiRecords());
  const refs = new IdRegistry('org', live);
  const ctx = { address: 'project.shop/environment.production/helm.chart', refs, fingerprintKey: 'k' };
  const attrs = { name: 'chart', source: { helm_repository: { repository: 'bitnami', chart_name: 'redis', chart_version: '20.0.0' } } };

  it('create: the repository name becomes the id of the live helm repository', () => {
    expect(createBody('helm', attrs, ctx).source).toEqual({ helm_repository: { repository: id('bitnami'), chart_name: 'redis', chart_version: '20.0.0' } });
  });

  it('update: built from the real record, in request shape, the desired source over it', () => {
    const record = live.resources.get('project.shop/environment.production/helm.chart')!.record as Record<string, any> & { id: string };
    expect(updateBody('helm', { name: 'chart' }, record, ctx).source).toEqual({ helm_repository: { repository: id('bitnami'), chart_name: 'redis', chart_version: '19.0.0' } });
    expect(updateBody('helm', attrs, record, ctx).source).toEqual({ helm_repository: { repository: id('bitnami'), chart_name: 'redis', chart_version: '20.0.0' } });
    const gitRecord = { ...record, source: { git: { git_repository: { url: 'https://gitlab.com/acme/charts.git', branch: 'main', root_path: '/c', owner: 'acme', deployed_commit_id: 'abc' } } } };
    expect(updateBody('helm', { name: 'chart' }, gitRecord, ctx).source).toEqual({ git_repository: { url: 'https://gitlab.com/acme/charts.git', branch: 'main', root_path: '/c', provider: 'GITLAB' } });
  });

  it('an unknown name is an UnresolvedReferenceError naming who needs it', () => {
    const bad = { ...attrs, source: { helm_repository: { ...attrs.source.helm_repository, repository: 'nope' } } };
    expect(() => createBody('helm', bad, ctx)).toThrow(UnresolvedReferenceError);
    expect(() => createBody('helm', bad, ctx)).toThrow('helm_repository.nope does not exist (needed by project.shop/environment.production/helm.chart)');
  });
});

describe('plan', () => {
  const withRepository = (name: string): Manifest => {
    const m = fullManifest();
    const chart = m.projects![0]!.environments![0]!.services!.find((s) => s.type === 'helm') as HelmSpec;
    chart.source = { helm_repository: { repository: name, chart_name: 'redis', chart_version: '19.0.0' } };
    return m;
  };

  it('a live service from the named repository is unchanged; the repository is a live object apply resolves', () => {
    const plan = computePlan(buildGraph(withRepository('bitnami')).graph, liveFrom(apiRecords()), { fingerprintKey: KEY });
    expect(plan.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(planHasChanges(plan)).toBe(false);
    expect(plan.live_objects['helm_repository.bitnami']?.id).toBe(id('bitnami'));
    // Never listed as unmanaged, never deleted: repositories are not the manifest's.
    expect(plan.changes.some((c) => c.kind === 'helm_repository')).toBe(false);
  });

  it('another repository name is a change of the source', () => {
    const r = apiRecords();
    r.helmRepositories.push({ id: id('charts'), name: 'charts', kind: 'HTTPS', url: 'https://charts.example.com', created_at: 'x' });
    const plan = computePlan(buildGraph(withRepository('charts')).graph, liveFrom(r), { fingerprintKey: KEY });
    const c = plan.changes.find((x) => x.address === 'project.shop/environment.production/helm.chart')!;
    expect(c.actions).toEqual(['update']);
    expect(c.fields.map((f) => f.field)).toContain('source');
  });

  it('an unknown name is an error at plan time (the check validate --remote makes), with the known names and a guess; the plan cannot be applied', () => {
    const m = withRepository('bitnam');
    const live = liveFrom(apiRecords());
    const checks = checkOrganizationReferences(m, referenceContextOfLive(live));
    const plan = computePlan(buildGraph(m).graph, live, { fingerprintKey: KEY, checks });
    const errors = plan.diagnostics.filter((d) => d.severity === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      code: 'ref.unresolved',
      summary: 'helm repository `bitnam` does not exist in the organization',
      address: 'project.shop/environment.production/helm.chart',
    });
    expect(errors[0]!.detail).toContain('Did you mean `bitnami`? Known: bitnami.');
    expect(plan.applyable).toBe(false);
    // The same check from the names validate --remote reads gives the same diagnostic.
    expect(checkReferences(m, { helmRepositories: ['bitnami'] }).filter((d) => d.severity === 'error')).toEqual(errors);
  });

  it('the helm repository list is read only when the manifest has helm services', () => {
    expect(orgListsNeeded(buildGraph(fullManifest()).graph).has('helmRepositories')).toBe(true);
    const m = fullManifest();
    for (const e of m.projects![0]!.environments!) e.services = (e.services ?? []).filter((s) => s.type !== 'helm');
    for (const e of m.projects![0]!.environments!) e.deployment_stages = (e.deployment_stages ?? []).map((st) => ({ ...st, services: (st.services ?? []).filter((n) => n !== 'chart') }));
    const { graph, diagnostics } = buildGraph(m);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(orgListsNeeded(graph).has('helmRepositories')).toBe(false);
  });
});
