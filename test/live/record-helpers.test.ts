/**
 * The small readers of API records the kind descriptors share (src/live/record-helpers.ts): the
 * deployed commit, a registry's name, a service's compute fields, a helm chart's source in either
 * shape the API answers, helm key/values. What they get wrong shows as a diff on every plan.
 */
import { describe, expect, it } from 'vitest';
import { args, byKey, computeFromRecord, deployedCommit, gitRepo, helmSource, helmSourceParts, nameOf, pairs, registryName, type LiveLookup } from '../../src/live/record-helpers.js';
import { buildLiveLookup } from '../../src/live/normalize.js';

const lookup: LiveLookup = buildLiveLookup({ registries: [{ id: 'r1', name: 'hub' }], helmRepositories: [{ id: 'h1', name: 'bitnami' }] });

describe('names and small fields', () => {
  it('an unknown id stays visible', () => {
    expect(nameOf(lookup.registries, 'r1')).toBe('hub');
    expect(nameOf(lookup.registries, 7)).toBe('(unknown id 7)');
  });

  it('byKey orders by key', () => {
    expect([{ key: 'b' }, { key: 'a' }, { key: 'b' }, { key: 'c' }].sort(byKey).map((x) => x.key)).toEqual(['a', 'b', 'b', 'c']);
    expect(byKey({ key: 'a' }, { key: 'a' })).toBe(0);
    expect(byKey({ key: 'a' }, { key: 'b' })).toBe(-1);
    expect(byKey({ key: 'b' }, { key: 'a' })).toBe(1);
  });

  it('arguments are strings; anything but a list is none', () => {
    expect(args([1, 'x'])).toEqual(['1', 'x']);
    expect(args('x')).toBeUndefined();
  });

  it('a git repository is normalised; none is none', () => {
    expect(gitRepo(undefined)).toBeUndefined();
    expect(gitRepo('https://x')).toBeUndefined();
    expect(gitRepo({ url: 'https://github.com/a/b.git', branch: 'main' })).toMatchObject({ url: 'https://github.com/a/b.git', branch: 'main' });
  });

  it('the deployed commit, when the API says', () => {
    expect(deployedCommit({ deployed_commit_id: 'abc' })).toEqual({ git_commit_id: 'abc' });
    expect(deployedCommit({ deployed_commit_id: '' })).toBeUndefined();
    expect(deployedCommit({})).toBeUndefined();
    expect(deployedCommit(null)).toBeUndefined();
    expect(deployedCommit(undefined)).toBeUndefined();
  });

  it('a registry by its embedded name, else by id through the lookup', () => {
    expect(registryName({ registry: { id: 'r1', name: 'embedded' } }, lookup)).toBe('embedded');
    expect(registryName({ registry_id: 'r1' }, lookup)).toBe('hub');
    expect(registryName({ registry: { id: 'r1' } }, lookup)).toBe('hub');
    expect(registryName({ registry: { id: 'r1', name: 5 } }, lookup)).toBe('hub');
    expect(registryName({}, lookup)).toBe('(unknown id undefined)');
  });
});

describe('computeFromRecord', () => {
  it('keeps the compute fields, numbers as numbers, and leaves out what the API does not give', () => {
    expect(computeFromRecord({ cpu: '500', memory: 512, min_running_instances: 1, max_running_instances: 3, arguments: ['a', 2], entrypoint: '/bin/sh', auto_deploy: false, name: 'x' })).toEqual({
      cpu: 500,
      memory: 512,
      min_running_instances: 1,
      max_running_instances: 3,
      healthchecks: { readiness_probe: null, liveness_probe: null },
      arguments: ['a', '2'],
      entrypoint: '/bin/sh',
      auto_deploy: false,
    });
    const c = computeFromRecord({ entrypoint: null, auto_deploy: null, ports: 'no', storage: 'no' });
    expect(c).not.toHaveProperty('entrypoint');
    expect(c).not.toHaveProperty('auto_deploy');
    expect(c).not.toHaveProperty('ports');
    expect(c).not.toHaveProperty('storage');
    expect(c).not.toHaveProperty('cpu');
  });

  it('ports and storage are normalised lists', () => {
    const c = computeFromRecord({ ports: [{ internal_port: 8080, publicly_accessible: true, protocol: 'HTTP' }], storage: [{ mount_point: '/data', size: 10, type: 'FAST_SSD' }] });
    expect(Array.isArray(c.ports)).toBe(true);
    expect((c.ports as unknown[]).length).toBe(1);
    expect(c.ports).toMatchObject([{ internal_port: 8080 }]);
    expect(c.storage).toMatchObject([{ mount_point: '/data', size: 10 }]);
  });
});

describe('helm source', () => {
  it('the API\'s answer: the embedded repository by name, the chart version as a string', () => {
    const src = { repository: { chart_name: 'redis', chart_version: 18, repository: { id: 'h9', name: 'embedded', url: 'https://x' } } };
    expect(helmSource(src, lookup)).toEqual({ helm_repository: { repository: 'embedded', chart_name: 'redis', chart_version: '18' } });
    expect(helmSourceParts(src)).toEqual({ chart: src.repository });
  });

  it('a repository without a name is named through the lookup, or stays a visible id', () => {
    expect(helmSource({ repository: { chart_name: 'redis', repository: { id: 'h1' } } }, lookup)).toEqual({ helm_repository: { repository: 'bitnami', chart_name: 'redis' } });
    expect(helmSource({ repository: { chart_name: 'redis', chart_version: null, repository: { id: 'h7' } } }, lookup)).toEqual({ helm_repository: { repository: '(unknown id h7)', chart_name: 'redis' } });
  });

  it('the request shape: the repository as an id, named when the lookup knows it', () => {
    expect(helmSource({ helm_repository: { repository: 'h1', chart_name: 'pg', chart_version: '1.0' } }, lookup)).toEqual({ helm_repository: { repository: 'bitnami', chart_name: 'pg', chart_version: '1.0' } });
    expect(helmSource({ helm_repository: { repository: 'h5', chart_name: 'pg' } }, lookup)).toEqual({ helm_repository: { repository: 'h5', chart_name: 'pg' } });
    expect(helmSource({ helm_repository: { chart_name: 'pg' } }, lookup)).toEqual({ helm_repository: { chart_name: 'pg' } });
  });

  it('a git source, in either shape; nothing else is a source', () => {
    const git = { url: 'https://g/c.git', branch: 'main', root_path: '/chart' };
    expect(helmSource({ git: { git_repository: git } }, lookup)).toEqual({ git_repository: git });
    expect(helmSource({ git_repository: git }, lookup)).toEqual({ git_repository: git });
    expect(helmSourceParts({ git: { git_repository: git } })).toEqual({ git });
    expect(helmSource({ git: 'x' }, lookup)).toEqual({});
    expect(helmSource({ git_repository: 'x' }, lookup)).toEqual({});
    expect(helmSource(undefined, lookup)).toEqual({});
    expect(helmSource(null, lookup)).toEqual({});
    expect(helmSourceParts({ repository: 'x', helm_repository: 'y' })).toEqual({});
    // A `git` field that is no object (null in some answers) leaves the request shape's git repository.
    expect(helmSource({ git: null, git_repository: git }, lookup)).toEqual({ git_repository: git });
    expect(helmSource({ git: 'x', git_repository: git }, lookup)).toEqual({ git_repository: git });
  });
});

describe('pairs', () => {
  it('helm key/values from [[k, v]] or {key, value}, as sorted string pairs', () => {
    expect(pairs([['b', 2], { key: 'a', value: 'x' }, null, 'junk'])).toEqual([['a', 'x'], ['b', '2']]);
    expect(pairs([])).toEqual([]);
  });
});
