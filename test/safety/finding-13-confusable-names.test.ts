/**
 * Finding 13 (names): names that differ only by look-alike characters (`shop` and `ѕhop`, whose
 * first letter is Cyrillic) were two projects without a word. Now validate and plan warn, naming
 * both names and where each is written (Unicode's confusables skeleton, UTS #39), in each namespace:
 * projects, environments of a project, services of an environment, variable keys of a scope.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../e2e/helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CYRILLIC_S = '\u0455';

const manifest = `version: 1
projects:
  - name: shop
    variables:
      - {key: LOG_LEVEL, value: info}
      - {key: L0G_LEVEL, value: debug}
    environments:
      - name: prod
        cluster: production-cluster
        services:
          - type: container
            name: api
            registry: docker-hub
            image_name: acme/api
            tag: "1"
          - type: container
            name: аpi
            registry: docker-hub
            image_name: acme/api
            tag: "1"
  - name: ${CYRILLIC_S}hop
`;

describe('finding 13: look-alike names are pointed out', () => {
  it('finding 13: validate warns about shop and ѕhop, naming both and where each is written', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest });
    const r = await h.run(['validate', 'm', '--format', 'json']);
    expect(r.code, r.stdout).toBe(0);
    const doc = JSON.parse(r.stdout) as { diagnostics: Array<{ severity: string; code: string; summary: string; detail: string; range: { file: string; start: { line: number; col: number } } }> };
    const confusable = doc.diagnostics.filter((d) => d.code === 'manifest.confusable');
    expect(confusable.every((d) => d.severity === 'warning')).toBe(true);
    const project = confusable.find((d) => d.summary.startsWith('project'))!;
    expect(project.summary).toBe(`project \`${CYRILLIC_S}hop\` looks like project \`shop\` (m/main.yaml:3:11) but is another name`);
    expect(project.range).toMatchObject({ file: 'm/main.yaml', start: { line: 21, col: 11 } });
    expect(project.detail).toContain('U+0455');
    // services of one environment (Cyrillic а in аpi) and variable keys of one scope (0 and O)
    expect(confusable.map((d) => d.summary.split(' looks like')[0])).toEqual(expect.arrayContaining(['variable `L0G_LEVEL`', 'service `\u0430pi`']));
    expect(confusable).toHaveLength(3);
  });

  it('finding 13: plan shows the same warnings; names that only look different stay silent', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': manifest });
    const plan = await h.run(['plan', 'm']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toContain(`project \`${CYRILLIC_S}hop\` looks like project \`shop\``);

    h.write({ 'm/main.yaml': 'version: 1\nprojects:\n  - name: shop\n  - name: shop-eu\n  - name: café\n  - name: cafe-2\n' });
    const clean = await h.run(['validate', 'm']);
    expect(clean.code).toBe(0);
    expect(clean.stderr).not.toContain('looks like');
  });
});
