/**
 * A secret under its object's `ignore_changes` is needed only to create the object: when its
 * `${env:NAME}` is not set, loading leaves it unread (no error, no warning) instead of failing; set,
 * it is read as usual; a secret that is not ignored still needs its variable; an empty one is an
 * error either way. Plan refuses to create an object whose ignored secret was left unread.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { loadManifestFromSources } from '../../src/manifest/load.js';
import type { Manifest, VariableSpec } from '../../src/manifest/types.js';
import type { LiveState } from '../../src/model/resource.js';
import { isSecretValue, isUnreadSecret } from '../../src/model/secret.js';
import { computePlan } from '../../src/plan/compute.js';

const text = (ignore: string) => `version: 1
webhooks:
  - target_url: https://ci.example.com/hook
    events: [DEPLOYMENT_FAILED]
    secret: \${env:HOOK_SECRET}
    ${ignore}
projects:
  - name: shop
    variables:
      - key: DB_PASSWORD
        value: \${env:DB_PASSWORD}
        secret: true
        ignore_changes: [value]
`;

function load(source: string, env: Record<string, string>) {
  return loadManifestFromSources([{ file: { path: '/virtual/m.yaml', root: '/virtual', display: 'm.yaml' }, text: source }], { env, readFile: () => ({ ok: false, reason: 'none' }) });
}

const dbPassword = (m: Manifest) => (m.projects![0]!.variables![0] as VariableSpec).value;

describe('secrets under ignore_changes', () => {
  it('are left unread, silently, when their variable is not set', () => {
    const r = load(text('ignore_changes: [secret]'), {});
    expect(r.diagnostics).toEqual([]);
    const v = dbPassword(r.manifest!);
    expect(isUnreadSecret(v)).toBe(true);
    expect((v as { reference?: string }).reference).toBe('${env:DB_PASSWORD}');
    expect(isUnreadSecret(r.manifest!.webhooks![0]!.secret)).toBe(true);
  });

  it('are read when it is set', () => {
    const r = load(text('ignore_changes: [secret]'), { DB_PASSWORD: 'pw', HOOK_SECRET: 'hs' });
    expect(r.diagnostics).toEqual([]);
    const v = dbPassword(r.manifest!);
    expect(isSecretValue(v) && !isUnreadSecret(v) && v.reveal()).toBe('pw');
  });

  it('a secret that is not ignored still needs its variable; an empty one is an error either way', () => {
    const missing = load(text(''), { DB_PASSWORD: 'pw' });
    expect(missing.manifest).toBeUndefined();
    expect(missing.diagnostics.map((d) => [d.code, d.summary])).toEqual([['ref.env-missing', 'environment variable `HOOK_SECRET` is not set']]);
    const empty = load(text('ignore_changes: [secret]'), { HOOK_SECRET: '', DB_PASSWORD: 'pw' });
    expect(empty.diagnostics.map((d) => d.code)).toEqual(['ref.env-empty']);
  });

  it('plan refuses to create an object whose ignored secret was not read, naming the variable', () => {
    const r = load(text('ignore_changes: [secret]'), { HOOK_SECRET: 'hs' });
    const { graph } = buildGraph(r.manifest!);
    const live: LiveState = { organizationId: 'org', requestCount: 0, resources: new Map() };
    const plan = computePlan(graph, live, { fingerprintKey: 'k' });
    const errors = plan.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => [d.code, d.summary])).toEqual([
      ['plan.secret-needed', 'project.shop/variable.DB_PASSWORD is created, and its secret `value` needs a value: ${env:DB_PASSWORD} is not set'],
    ]);
    expect(plan.applyable).toBe(false);
  });
});
