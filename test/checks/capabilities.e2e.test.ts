/**
 * The platform's other capabilities end to end, against the emulator: a cluster asked to run the
 * next Kubernetes version shows the upgrade in the plan, apply calls the upgrade, and once it is
 * done the plan converges (no newer version is offered); a database declared with `clone_from` is
 * created through the clone operation (it carries the source's configuration the manifest does
 * not set).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const MANIFEST = `version: 1
clusters:
  - name: staging-cluster
    upgrade_kubernetes: true
projects:
  - name: shop
    environments:
      - name: dev
        cluster: staging-cluster
        services:
          - type: database
            name: pg
            database_type: POSTGRESQL
            version: "16"
            mode: CONTAINER
            storage: 20
      - name: preview
        cluster: staging-cluster
        services:
          - type: database
            name: pg-copy
            database_type: POSTGRESQL
            version: "16"
            mode: CONTAINER
            clone_from:
              environment: dev
              database: pg
`;

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('cluster upgrade and database clone', () => {
  it('plans and applies the upgrade and the clone, then converges', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': MANIFEST });
    const staging = Object.values(h.emu.state.clusters).find((c) => c.name === 'staging-cluster')!;
    expect(staging.version).toBe('1.30');

    const p = await h.run(['plan', 'm', '--json']);
    expect(p.code, p.stderr).toBe(0);
    const plan = JSON.parse(p.stdout);
    const upgrade = plan.resource_changes.find((c: { address: string }) => c.address === 'cluster.staging-cluster');
    expect(upgrade.change.actions).toEqual(['update']);
    const human = await h.run(['plan', 'm']);
    expect(human.stdout).toContain('upgrade Kubernetes 1.30 -> 1.31');

    const a = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(a.code, a.stderr + a.stdout).toBe(0);
    // POST /cluster/{id}/upgrade was called: the cluster is upgrading or upgraded.
    expect(h.emu.state.clusterStatuses[staging.id]!.last_execution_id).toEqual(expect.any(String));
    await until('the upgrade', () => h.emu.state.clusterStatuses[staging.id]!.status === 'DEPLOYED');
    expect(h.emu.state.clusters[staging.id]!.version).toBe('1.31');
    expect(h.emu.state.clusterStatuses[staging.id]!.next_k8s_available_version).toBeNull();
    // No newer version is offered, so the API refuses another upgrade.
    const refused = await fetch(`${h.emu.url}/cluster/${staging.id}/upgrade`, { method: 'POST', headers: { Authorization: `Token ${h.emu.tokens.DEPLOY}` } });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toContain('no newer Kubernetes version');

    const services = Object.values(h.emu.state.services);
    const source = services.find((s) => s.name === 'pg')!;
    const copy = services.find((s) => s.name === 'pg-copy')!;
    // A create would have the API's default storage (10); the clone has the source's.
    expect(copy.storage).toBe(20);
    expect(copy.environment.id).not.toBe(source.environment.id);

    const again = await h.run(['plan', 'm', '--detailed-exitcode']);
    expect(again.stdout).toContain('No changes.');
    expect(again.code).toBe(0);
  });
});
