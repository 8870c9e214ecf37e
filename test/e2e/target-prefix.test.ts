/**
 * `--target` takes a subtree by whole address segments: `project.shop` never takes `project.shop2`,
 * `environment.prod` never `environment.prod2`, neither in what is planned nor in what is pruned,
 * end to end against the emulator (a planted `startsWith` without the `/` went unnoticed).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const project = (name: string, tag: string, extras: boolean) => `  - name: ${name}
    environments:
${['prod', 'prod2']
  .map(
    (env) => `      - name: ${env}
        cluster: staging-cluster
        services:
          - type: container
            name: web
            registry: docker-hub
            image_name: library/nginx
            tag: "${tag}"
`,
  )
  .join('')}${extras ? `      - name: preview
        cluster: staging-cluster
` : ''}    prune:
      environments: true
`;

const manifest = (tag: string, extras: boolean) => `version: 1\nprojects:\n${project('shop', tag, extras)}${project('shop2', tag, extras)}`;

function liveTags(harness: Harness): Record<string, string> {
  const s = harness.emu.state;
  const envs = new Map(Object.values(s.environments).map((e) => [e.id, e]));
  const projects = new Map(Object.values(s.projects).map((p) => [p.id, String(p.name)]));
  const out: Record<string, string> = {};
  for (const svc of Object.values(s.services)) {
    const env = envs.get(String((svc.environment as { id: string }).id))!;
    out[`${projects.get(String((env.project as { id: string }).id))}/${env.name}/${svc.name}`] = String(svc.tag);
  }
  return out;
}

const envNames = (harness: Harness) => Object.values(harness.emu.state.environments).map((e) => `${String(harness.emu.state.projects[String((e.project as { id: string }).id)]!.name)}/${e.name}`).sort();

async function setUp(): Promise<Harness> {
  const harness = await startHarness();
  harness.write({ 'm/main.yaml': manifest('1.27', true) });
  const applied = await harness.run(['apply', 'm', '--auto-approve', ...FAST]);
  expect(applied.code, applied.stderr).toBe(0);
  // Git moves on everywhere: every tag changes and both preview environments are removed.
  harness.write({ 'm/main.yaml': manifest('1.28', false) });
  return harness;
}

const touched = (doc: any): string[] => doc.resource_changes.filter((c: any) => c.change.actions[0] !== 'no-op' || c.change.deploy).map((c: any) => c.address).sort();

describe('--target by whole address segments', () => {
  it('project.shop plans and prunes nothing of project.shop2', async () => {
    h = await setUp();
    const r = await h.run(['plan', 'm', '--target', 'project.shop', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(touched(doc)).toEqual(
      ['project.shop/environment.preview', 'project.shop/environment.prod/container.web', 'project.shop/environment.prod2/container.web'].sort(),
    );
    expect(doc.resource_changes.filter((c: any) => c.address.startsWith('project.shop2')).map((c: any) => c.address)).toEqual([]);

    const a = await h.run(['apply', 'm', '--target', 'project.shop', '--auto-approve', ...FAST]);
    expect(a.code, a.stderr).toBe(0);
    expect(envNames(h)).toEqual(['shop/prod', 'shop/prod2', 'shop2/preview', 'shop2/prod', 'shop2/prod2']);
    expect(liveTags(h)).toEqual({ 'shop/prod/web': '1.28', 'shop/prod2/web': '1.28', 'shop2/prod/web': '1.27', 'shop2/prod2/web': '1.27' });
  });

  it('environment.prod takes neither environment.prod2 nor the other project\'s prod', async () => {
    h = await setUp();
    const r = await h.run(['plan', 'm', '--target', 'project.shop/environment.prod', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(touched(JSON.parse(r.stdout))).toEqual(['project.shop/environment.prod/container.web']);
  });
});
