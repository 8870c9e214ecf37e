/**
 * The plan's reads: list endpoints only, within the budget of issue 6
 * (1 per service with variables + 3 per environment + 2 per project + 8), and the count the plan
 * reports is the count the API saw. Also: every example goes from nothing to deployed in one
 * apply, and the next plan is empty.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness, ONLY_USAGE_LINE } from './helpers.js';
import { remainingRequests } from './fixtures.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** P projects x E environments x S services (each with a variable; every other one a container). */
function sizedManifest(P: number, E: number, S: number): string {
  const out = ['version: 1', 'projects:'];
  for (let p = 0; p < P; p++) {
    out.push(`  - name: p${p}`, '    variables:', '      - key: REGION', '        value: eu', '    environments:');
    for (let e = 0; e < E; e++) {
      out.push(`      - name: e${e}`, '        cluster: staging-cluster', '        services:');
      for (let s = 0; s < S; s++) {
        out.push(
          `          - type: container`,
          `            name: s${s}`,
          '            registry: docker-hub',
          '            image_name: library/nginx',
          '            tag: "1.27"',
          '            variables:',
          `              - key: INDEX`,
          `                value: "${s}"`,
        );
      }
    }
  }
  return out.join('\n') + '\n';
}

describe('request budget of a plan', () => {
  it('reads with lists only, within the budget formula, and reports what the API counted', async () => {
    const [P, E, S] = [2, 2, 3];
  // The full read's own requests are measured here: no refresh cache, even in `npm run test:warm`.
    h = await startHarness({ refreshCache: false });
    h.write({ 'm/main.yaml': sizedManifest(P, E, S) });
    expect((await h.run(['apply', 'm', '--auto-approve', ...FAST])).code).toBe(0);

    const before = await remainingRequests(h);
    const r = await h.run(['plan', 'm', '--json']);
    const after = await remainingRequests(h);
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout);
    expect(plan.summary).toMatchObject({ add: 0, change: 0, destroy: 0, deploy: 0 });
    const servicesWithVariables = P * E * S;
    // organization, projects, clusters, registries; per project its environments; per environment
    // its services and statuses; per service its variables (which also carry the project's)
    const expected = 4 + P + 2 * P * E + servicesWithVariables;
    expect(plan.request_count).toBe(expected);
    expect(plan.request_count).toBeLessThanOrEqual(servicesWithVariables + 3 * P * E + 2 * P + 8);
    expect(before - after - 1).toBe(plan.request_count);
    // against the per-resource pattern: about 9 reads per service
    expect(plan.request_count * 3).toBeLessThan(9 * P * E * S);
  });
});

describe('examples', () => {
  for (const example of ['minimal', 'realistic']) {
    it(`${example}: one apply from an empty organization to deployed, then no changes`, async () => {
      h = await startHarness();
      cpSync(join(import.meta.dirname, '../../examples', example), join(h.dir, example), { recursive: true });
      const env = {
        STRIPE_API_KEY: 'sk_test_example',
        SESSION_SECRET: 'session-example',
        SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T000/B000/XXXX',
        WEBHOOK_SIGNING_SECRET: 'whsec_example',
      };
      const a = await h.run(['apply', example, '--auto-approve', ...FAST], { env });
      expect(a.stderr).toMatch(ONLY_USAGE_LINE);
      expect(a.code).toBe(0);
      expect(a.stdout.trimEnd().split('\n').pop()).toMatch(/^Apply complete! Resources: \d+ added, 0 changed, 0 destroyed; \d+ deployed\.$/);
      for (const st of Object.values(h.emu.state.serviceStatuses)) expect(st.state).toBe('DEPLOYED');
      const p = await h.run(['plan', example, '--detailed-exitcode'], { env });
      expect(p.stdout).toContain('No changes.');
      expect(p.code).toBe(0);
      for (const secret of Object.values(env)) expect(a.stdout + a.stderr + p.stdout + p.stderr).not.toContain(secret);
    });
  }
});
