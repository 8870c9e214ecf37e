/**
 * Finding 7 (part): a secret description of 250 characters passed `validate` and failed `plan`.
 * driftless appends a fingerprint marker to the description of every record holding a secret, and
 * the API takes at most 255 characters: plan checked the room left, validate did not. Every offline
 * check plan makes while building the desired graph is now made by validate too (the same code).
 */
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
});
