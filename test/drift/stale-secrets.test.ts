/**
 * A secret edited in the console keeps its description, hence its driftless fingerprint, but its
 * record's updated_at moves past the last deployment of the services that read it: such a
 * fingerprint is dropped (the plan then rewrites the secret once). Evidence-free scopes keep theirs.
 */
import { describe, expect, it } from 'vitest';
import { distrustStaleSecretFingerprints } from '../../src/live/stale-secrets.js';
import type { LiveResource } from '../../src/model/resource.js';

const r = (x: Partial<LiveResource> & { address: string; kind: LiveResource['kind'] }): LiveResource => ({ name: 'n', id: 'i', attrs: {}, record: {}, version: 'v', ...x });
const secret = (address: string, parent: string, updated: string) =>
  r({ address, kind: 'variable', parent, attrs: { is_secret: true }, record: { updated_at: updated }, fingerprints: { value: 'fp', other: 'keep' } });

describe('distrustStaleSecretFingerprints', () => {
  it('drops the value fingerprint of a secret updated after the last deployment under its scope, and only that', () => {
    const resources = new Map<string, LiveResource>();
    for (const x of [
      r({ address: 'project.p', kind: 'project' }),
      r({ address: 'project.p/environment.e', kind: 'environment', parent: 'project.p' }),
      r({ address: 'project.p/environment.e/application.a', kind: 'application', parent: 'project.p/environment.e', status: { last_deployment_date: '2026-01-02T00:00:00.000Z' } }),
      // A database deployed later says nothing about variables.
      r({ address: 'project.p/environment.e/database.d', kind: 'database', parent: 'project.p/environment.e', status: { last_deployment_date: '2026-01-09T00:00:00.000Z' } }),
      r({ address: 'project.q', kind: 'project' }),
      secret('project.p/variable.EDITED', 'project.p', '2026-01-03T00:00:00.000Z'),
      secret('project.p/environment.e/variable.WRITTEN', 'project.p/environment.e', '2026-01-01T00:00:00.000Z'),
      secret('project.q/variable.NO_SERVICES', 'project.q', '2026-01-05T00:00:00.000Z'),
    ])
      resources.set(x.address, x);
    distrustStaleSecretFingerprints(resources);
    expect(resources.get('project.p/variable.EDITED')!.fingerprints).toEqual({ other: 'keep' });
    // The plan says why the value is unknown: replaced since driftless wrote it.
    expect(resources.get('project.p/variable.EDITED')!.distrustedFingerprints).toEqual(['value']);
    expect(resources.get('project.p/environment.e/variable.WRITTEN')!.distrustedFingerprints).toBeUndefined();
    expect(resources.get('project.p/environment.e/variable.WRITTEN')!.fingerprints).toEqual({ value: 'fp', other: 'keep' });
    expect(resources.get('project.q/variable.NO_SERVICES')!.fingerprints).toEqual({ value: 'fp', other: 'keep' });
  });

  it('a secret updated in the same instant as the last deployment keeps its fingerprint; a millisecond later it does not', () => {
    const deployed = '2026-01-02T00:00:00.000Z';
    const judge = (updated: string) => {
      const resources = new Map<string, LiveResource>();
      for (const x of [
        r({ address: 'project.p', kind: 'project' }),
        r({ address: 'project.p/application.a', kind: 'application', parent: 'project.p', status: { last_deployment_date: deployed } }),
        secret('project.p/variable.S', 'project.p', updated),
      ])
        resources.set(x.address, x);
      distrustStaleSecretFingerprints(resources);
      return resources.get('project.p/variable.S')!.fingerprints;
    };
    expect(judge(deployed)).toEqual({ value: 'fp', other: 'keep' });
    expect(judge('2026-01-02T00:00:00.001Z')).toEqual({ other: 'keep' });
  });
});
