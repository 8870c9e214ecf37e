/**
 * Organization-level objects: groups and webhooks updated in place with full-replacement PUTs, a
 * webhook's signing secret rotated (compared by fingerprint), and pruning at the organization level.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const manifest = (events: string, value: string, prune: boolean) => `version: 1
${prune ? 'prune:\n  webhooks: true\n' : ''}annotation_groups:
  - name: obs
    annotations: { team: ${value} }
    scopes: [DEPLOYMENTS]
webhooks:
  - target_url: https://ci.example.com/hook
    events: [${events}]
    secret: \${env:WH}
    description: CI
${prune ? '' : '  - target_url: https://old.example.com/hook\n    events: [DEPLOYMENT_STARTED]\n'}label_groups:
  - name: cost
    labels:
      - key: cc
        value: "${value}"
`;

describe('organization-level objects', () => {
  it('update in place, rotate a webhook secret by fingerprint, prune where the organization opts in, converge', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest('DEPLOYMENT_STARTED', 'a', false) });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST], { env: { WH: 'whsec-one' } })).code).toBe(0);
    const hookId = Object.values(h.emu.state.webhooks).find((w) => w.target_url === 'https://ci.example.com/hook')!.id;

    h.write({ 'm/main.yaml': manifest('DEPLOYMENT_STARTED, DEPLOYMENT_SUCCEEDED', 'b', true) });
    const env = { WH: 'whsec-two' };
    const r = await h.run(['apply', 'm', '--auto-approve', ...FAST], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('target_secret: (sensitive value) -> (sensitive value)');
    expect(r.stdout.trimEnd().split('\n').pop()).toBe('Apply complete! Resources: 0 added, 3 changed, 1 destroyed; 0 deployed.');
    expect(h.emu.state.webhookSecrets[hookId]).toBe('whsec-two');
    expect(h.emu.state.webhooks[hookId]!.events).toEqual(['DEPLOYMENT_STARTED', 'DEPLOYMENT_SUCCEEDED']);
    expect(Object.values(h.emu.state.webhooks).map((w) => w.target_url)).toEqual(['https://ci.example.com/hook']);
    expect(Object.values(h.emu.state.annotationsGroups)[0]!.annotations).toEqual([{ key: 'team', value: 'b' }]);
    expect(Object.values(h.emu.state.labelsGroups)[0]!.labels).toEqual([{ key: 'cc', value: 'b', propagate_to_cloud_provider: false }]);

    const p = await h.run(['plan', 'm'], { env });
    expect(p.stdout).toContain('No changes.');
    for (const out of [r, p]) expect(out.stdout + out.stderr).not.toContain('whsec-');
  });
});
