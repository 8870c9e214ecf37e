/**
 * Finding 7 (part): a secret description of 250 characters passed `validate` and failed `plan`.
 * driftless appends a fingerprint marker to the description of every record holding a secret, and
 * the API takes at most 255 characters: plan checked the room left, validate did not. Every offline
 * check plan makes while building the desired graph is now made by validate too (the same code).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../e2e/helpers.js';
import { DESCRIPTION_MAX_LENGTH, markerLength } from '../../src/plan/fingerprint.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function secretVariable(description: string): string {
  return `version: 1
projects:
  - name: shop
    variables:
      - key: API_KEY
        value: \${env:API_KEY}
        secret: true
        description: "${description}"
`;
}

describe('finding 7: validate makes the offline checks plan makes', () => {
  it('finding 7: a 250-character secret description fails validate as it fails plan, at the same place', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': secretVariable('d'.repeat(250)) });
    const room = DESCRIPTION_MAX_LENGTH - markerLength(['value']);
    expect(room).toBeLessThan(250);

    const v = await h.run(['validate', 'm']);
    expect(v.code).toBe(1);
    expect(v.stderr).toContain(`description is 250 characters; at most ${room} are allowed here`);
    expect(v.stderr).toContain('m/main.yaml:8:22');

    const plan = await h.run(['plan', 'm'], { env: { API_KEY: 'k' } });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(`description is 250 characters; at most ${room} are allowed here`);
    expect(Object.keys(h.emu.state.projects)).toHaveLength(0);
  });

  it('finding 7: a description that leaves room for the marker passes validate without the secret set', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': secretVariable('d'.repeat(DESCRIPTION_MAX_LENGTH - markerLength(['value']))) });
    const v = await h.run(['validate', 'm']);
    expect(v.code, v.stderr).toBe(0);
  });

  it('finding 7: a dependency cycle (two databases cloned from each other) fails validate as it fails plan', async () => {
    h = await startHarness();
    const db = (name: string, from: string) =>
      `          - {type: database, name: ${name}, database_type: POSTGRESQL, version: "16", mode: CONTAINER, clone_from: {database: ${from}}}\n`;
    h.write({
      'm/main.yaml': `version: 1
projects:
  - name: shop
    environments:
      - name: prod
        cluster: production-cluster
        services:
${db('a', 'b')}${db('b', 'a')}`,
    });
    const v = await h.run(['validate', 'm']);
    const plan = await h.run(['plan', 'm']);
    expect(v.code).toBe(1);
    expect(plan.code).toBe(1);
    expect(v.stderr).toContain('Dependency cycle');
    // Whatever plan reports offline about this manifest, validate reports too.
    const codes = (s: string) => [...new Set([...s.matchAll(/^error\[([\w.-]+)\]/gm)].map((m) => m[1]))].sort();
    expect(codes(v.stderr)).toEqual(codes(plan.stderr));
  });

  it('finding 7: on every golden validation case, plan reports no offline error that validate does not', async () => {
    h = await startHarness();
    const goldenDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../golden/validate');
    const cases = readdirSync(goldenDir, { withFileTypes: true }).filter((e) => e.name.endsWith('.yaml') || e.isDirectory());
    expect(cases.length).toBeGreaterThan(5);
    const env = { SLACK_URL: 'https://hooks.slack.com/services/x' };
    const errorCodes = (s: string) => [...new Set([...s.matchAll(/^error\[([\w.-]+)\]/gm)].map((m) => m[1]!))].sort();
    for (const c of cases) {
      const target = path.join(goldenDir, c.name);
      const v = await h.run(['validate', target], { env });
      const plan = await h.run(['plan', target], { env });
      expect(plan.code, c.name).toBe(1);
      expect(v.code, c.name).toBe(1);
      expect(errorCodes(v.stderr), c.name).toEqual(errorCodes(plan.stderr));
    }
    expect(Object.keys(h.emu.state.projects)).toHaveLength(0);
  });
});
