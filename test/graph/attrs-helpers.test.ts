/**
 * The normalisers both sides of a diff go through (src/graph/attrs.ts): a desired value and the
 * same value read from the API must normalise alike, and different values differently.
 */
import { describe, expect, it } from 'vitest';
import { desc, keyValuePairs, normalizeGitRepository, normalizeHealthchecks, normalizePorts, normalizeProbe, normalizeStorage, num, sortedSet } from '../../src/graph/attrs.js';
import { topologicalOrder } from '../../src/graph/order.js';

describe('attrs normalisers', () => {
  it('num: numbers and numeric text; blank, non-numeric and other types are absent', () => {
    expect(num(0)).toBe(0);
    expect(num(1.5)).toBe(1.5);
    expect(num('512')).toBe(512);
    expect(num(' 2 ')).toBe(2);
    expect(num('')).toBeUndefined();
    expect(num('   ')).toBeUndefined();
    expect(num('12abc')).toBeUndefined();
    expect(num(null)).toBeUndefined();
    expect(num(true)).toBeUndefined();
  });

  it('desc: empty and missing are both null; text is kept', () => {
    expect(desc('')).toBeNull();
    expect(desc(undefined)).toBeNull();
    expect(desc(42)).toBeNull();
    expect(desc('x')).toBe('x');
  });

  it('sortedSet and keyValuePairs: sorted, duplicates once, values as text', () => {
    expect(sortedSet(['b', 'a', 'b'])).toEqual(['a', 'b']);
    expect(keyValuePairs({ 'z.k': '1', 'a.k': 2 as unknown as string })).toEqual([['a.k', '2'], ['z.k', '1']]);
  });

  it('ports: sorted by internal port numerically, protocol upper-cased, only what is set', () => {
    expect(normalizePorts([
      { internal_port: 10000, protocol: 'grpc' },
      { internal_port: '9000', external_port: 443, name: 'web', publicly_accessible: true, id: 'x' },
      { internal_port: 80, external_port: null, name: 7, publicly_accessible: 'yes' },
    ])).toEqual([
      { internal_port: 80 },
      { name: 'web', internal_port: 9000, external_port: 443, publicly_accessible: true },
      { internal_port: 10000, protocol: 'GRPC' },
    ]);
  });

  it('probes: one type, defaults filled in, empty strings as the API defaults, none as null', () => {
    expect(normalizeProbe(undefined)).toBeNull();
    expect(normalizeProbe([])).toBeNull();
    const defaults = { initial_delay_seconds: 30, period_seconds: 10, timeout_seconds: 5, success_threshold: 1, failure_threshold: 9 };
    expect(normalizeProbe({ type: { tcp: { port: '8080', host: '' } } })).toEqual({ type: { tcp: { port: 8080, host: null } }, ...defaults });
    expect(normalizeProbe({ type: { tcp: null, http: { path: '', scheme: 'https', port: 80 } }, period_seconds: 3 })).toEqual({ type: { http: { path: '/', scheme: 'HTTPS', port: 80 } }, ...defaults, period_seconds: 3 });
    expect(normalizeProbe({ type: { http: { path: '/health' } } })).toEqual({ type: { http: { path: '/health', scheme: 'HTTP' } }, ...defaults });
    expect(normalizeProbe({ type: { exec: { command: ['sh', 1] } } })).toEqual({ type: { exec: { command: ['sh', '1'] } }, ...defaults });
    expect(normalizeProbe({ type: { exec: {} } })).toEqual({ type: { exec: { command: [] } }, ...defaults });
    expect(normalizeProbe({ type: { grpc: { port: 50051, service: 'health' } }, initial_delay_seconds: 0, timeout_seconds: 1, success_threshold: 2, failure_threshold: 3 })).toEqual({ type: { grpc: { port: 50051, service: 'health' } }, initial_delay_seconds: 0, period_seconds: 10, timeout_seconds: 1, success_threshold: 2, failure_threshold: 3 });
    expect(normalizeProbe({ type: 'tcp' })).toEqual({ type: {}, ...defaults });
    expect(normalizeHealthchecks({ liveness_probe: { type: { tcp: { port: 1 } } } })).toEqual({ readiness_probe: null, liveness_probe: { type: { tcp: { port: 1, host: null } }, ...defaults } });
    expect(normalizeHealthchecks(null)).toEqual({ readiness_probe: null, liveness_probe: null });
  });

  it('storage: type defaults to FAST_SSD, sorted by mount point, ids dropped', () => {
    expect(normalizeStorage([
      { id: 'x', type: 'SLOW', size: '10', mount_point: '/var' },
      { size: 5, mount_point: '/data' },
      { mount_point: '/z', type: 3 },
    ])).toEqual([
      { type: 'FAST_SSD', size: 5, mount_point: '/data' },
      { type: 'SLOW', size: 10, mount_point: '/var' },
      { type: 'FAST_SSD', mount_point: '/z' },
    ]);
  });

  it('git repository: only the four owned fields, only when text', () => {
    expect(normalizeGitRepository({ url: 'u', branch: 'b', root_path: '/r', provider: 'GITLAB', owner: 'o', deployed_commit_id: 'c' })).toEqual({ url: 'u', branch: 'b', root_path: '/r', provider: 'GITLAB' });
    expect(normalizeGitRepository({ url: 'u', branch: null, root_path: 1, provider: 5 })).toStrictEqual({ url: 'u' });
    expect(normalizeGitRepository({ url: 5 })).toEqual({});
  });
});

describe('topologicalOrder cycles', () => {
  it('names the cycle only, not the path that leads into it, closed on its first node', () => {
    const r = topologicalOrder([
      { address: 'lead', dependsOn: ['a'] },
      { address: 'a', dependsOn: ['b'] },
      { address: 'b', dependsOn: ['c', 'outside'] },
      { address: 'c', dependsOn: ['a'] },
      { address: 'free', dependsOn: [] },
    ]);
    expect(r.order).toEqual(['free']);
    expect(r.cycle).toEqual(['a', 'b', 'c', 'a']);
  });

  it('follows only dependencies still in the cycle: not a node already ordered, not one outside the graph', () => {
    const r = topologicalOrder([
      { address: 'free', dependsOn: [] },
      { address: 'a', dependsOn: ['b'] },
      { address: 'b', dependsOn: ['outside', 'free', 'b', 'a'] },
    ]);
    expect(r).toEqual({ order: ['free'], cycle: ['a', 'b', 'a'] });
  });

  it('a node depending on itself is not a cycle; parents count as dependencies', () => {
    expect(topologicalOrder([{ address: 'x', dependsOn: ['x'] }, { address: 'y', parent: 'x', dependsOn: [] }])).toEqual({ order: ['x', 'y'] });
    expect(topologicalOrder([{ address: 'p', parent: 'q', dependsOn: [] }, { address: 'q', parent: 'p', dependsOn: [] }]).cycle).toEqual(['p', 'q', 'p']);
  });
});
