/**
 * distrustStaleSecretFingerprints, what it leaves alone: only a secret variable's value fingerprint
 * is distrusted (not a plain variable's, not a service's own), the latest deployment under a scope
 * is the one that counts whatever order the services come in, and a secret whose value fingerprint
 * was the only one is left with none. (test/drift/stale-secrets.test.ts: what it drops.)
 */
import { describe, expect, it } from 'vitest';
import { distrustStaleSecretFingerprints } from '../../src/live/stale-secrets.js';
import type { LiveResource } from '../../src/model/resource.js';

const r = (x: Partial<LiveResource> & { address: string; kind: LiveResource['kind'] }): LiveResource => ({ name: 'n', id: 'i', attrs: {}, record: {}, version: 'v', ...x });
const ENV = 'project.p/environment.e';
const app = (name: string, deployed: string) => r({ address: `${ENV}/application.${name}`, kind: 'application', parent: ENV, status: { last_deployment_date: deployed } });

function judge(...extra: LiveResource[]): Map<string, LiveResource> {
  const resources = new Map<string, LiveResource>();
  for (const x of [r({ address: 'project.p', kind: 'project' }), r({ address: ENV, kind: 'environment', parent: 'project.p' }), ...extra]) resources.set(x.address, x);
  distrustStaleSecretFingerprints(resources);
  return resources;
}

describe('distrustStaleSecretFingerprints leaves alone', () => {
  it('a plain variable and a service with fingerprints, however late their records were updated', () => {
    const res = judge(
      app('a', '2026-01-02T00:00:00Z'),
      r({ address: `${ENV}/variable.PLAIN`, kind: 'variable', parent: ENV, attrs: { is_secret: false }, record: { updated_at: '2026-01-05T00:00:00Z' }, fingerprints: { value: 'fp' } }),
      r({ address: `${ENV}/application.b`, kind: 'application', parent: ENV, record: { updated_at: '2026-01-05T00:00:00Z' }, fingerprints: { value: 'fp' } }),
    );
    expect(res.get(`${ENV}/variable.PLAIN`)!.fingerprints).toEqual({ value: 'fp' });
    expect(res.get(`${ENV}/variable.PLAIN`)!.distrustedFingerprints).toBeUndefined();
    expect(res.get(`${ENV}/application.b`)!.fingerprints).toEqual({ value: 'fp' });
  });

  it('a secret without a value fingerprint (nothing of it to distrust)', () => {
    const res = judge(app('a', '2026-01-02T00:00:00Z'), r({ address: `${ENV}/variable.S`, kind: 'variable', parent: ENV, attrs: { is_secret: true }, record: { updated_at: '2026-01-05T00:00:00Z' }, fingerprints: { other: 'x' } }));
    expect(res.get(`${ENV}/variable.S`)!.fingerprints).toEqual({ other: 'x' });
    expect(res.get(`${ENV}/variable.S`)!.distrustedFingerprints).toBeUndefined();
  });

  it('a secret updated between two deployments of its scope: the latest one counts, whatever order the services come in', () => {
    const secret = () => r({ address: `${ENV}/variable.S`, kind: 'variable', parent: ENV, attrs: { is_secret: true }, record: { updated_at: '2026-01-03T00:00:00Z' }, fingerprints: { value: 'fp' } });
    for (const order of [
      [app('late', '2026-01-04T00:00:00Z'), app('early', '2026-01-02T00:00:00Z')],
      [app('early', '2026-01-02T00:00:00Z'), app('late', '2026-01-04T00:00:00Z')],
    ]) {
      expect(judge(...order, secret()).get(`${ENV}/variable.S`)!.fingerprints).toEqual({ value: 'fp' });
    }
  });
});

describe('distrustStaleSecretFingerprints drops', () => {
  it("the value fingerprint, and with it the secret's fingerprints when it was the only one", () => {
    const res = judge(app('a', '2026-01-02T00:00:00Z'), r({ address: `${ENV}/variable.S`, kind: 'variable', parent: ENV, attrs: { is_secret: true }, record: { updated_at: '2026-01-05T00:00:00Z' }, fingerprints: { value: 'fp' }, distrustedFingerprints: ['value'] }));
    const s = res.get(`${ENV}/variable.S`)!;
    expect('fingerprints' in s).toBe(false);
    expect(s.distrustedFingerprints).toEqual(['value']);
  });
});
