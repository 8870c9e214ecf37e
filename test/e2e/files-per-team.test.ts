/**
 * A manifest directory of files per team, against the emulator over HTTP: the platform team's file
 * declares the project and its environments (cluster, mode, stages), each product team's file
 * declares its own services in those environments. It plans, applies, and plans clean; a name
 * two teams declare is refused by validate and plan alike, at both files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FAST, ONLY_USAGE_LINE, startHarness, type Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const PLATFORM = `version: 1
projects:
  - name: shop
    description: Owned by the platform team
    variables:
      - {key: REGION, value: eu-west-3}
    environments:
      - name: staging
        mode: STAGING
        cluster: staging-cluster
        deployment_stages:
          - {name: backends, services: [api]}
          - {name: frontends, services: [web]}
      - name: production
        mode: PRODUCTION
        cluster: production-cluster
        variables:
          - {key: LOG_LEVEL, value: warn}
`;

const container = (name: string, image: string, tag: string, indent = '          ') =>
  [`- type: container`, `  name: ${name}`, `  registry: docker-hub`, `  image_name: ${image}`, `  tag: "${tag}"`, `  cpu: 250`, `  memory: 256`].map((l) => indent + l).join('\n');

const TEAM_WEB = `version: 1
projects:
  - name: shop
    environments:
      - name: staging
        services:
${container('web', 'library/nginx', '1.27')}
      - name: production
        services:
${container('web', 'library/nginx', '1.26')}
`;

const TEAM_API = `version: 1
projects:
  - name: shop
    variables:
      - {key: API_TIMEOUT, value: "30"}
    environments:
      - name: production
        services:
${container('api', 'library/busybox', '1.36')}
      - name: staging
        services:
${container('api', 'library/busybox', '1.37')}
`;

describe('a manifest directory of files per team', () => {
  it('plans, applies and plans clean; each team file puts its services in the environments the platform file declares', async () => {
    h = await startHarness();
    h.write({ 'infra/platform.yaml': PLATFORM, 'infra/team-web.yaml': TEAM_WEB, 'infra/team-api.yaml': TEAM_API });
    const validate = await h.run(['validate', 'infra']);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    const first = await h.run(['plan', 'infra', '--detailed-exitcode']);
    expect(first.code, first.stderr).toBe(2);
    expect(first.stdout).toContain('Plan: 12 to add, 0 to change, 0 to destroy, 4 to deploy.');

    const applied = await h.run(['apply', 'infra', '--auto-approve', ...FAST]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stderr).toMatch(ONLY_USAGE_LINE);

    // One project, two environments, and every service where its team's file put it.
    const s = h.emu.state;
    expect(Object.values(s.projects).map((p) => p.name)).toEqual(['shop']);
    const envName = new Map(Object.values(s.environments).map((e) => [e.id, String(e.name)]));
    const placed = Object.values(s.services)
      .map((svc) => `${envName.get(svc.environment?.id ?? svc.environment_id)}/${svc.name}:${svc.tag}`)
      .sort();
    expect(placed).toEqual(['production/api:1.36', 'production/web:1.26', 'staging/api:1.37', 'staging/web:1.27']);
    expect(Object.values(s.environments).map((e) => `${e.name}:${e.mode}`).sort()).toEqual(['production:PRODUCTION', 'staging:STAGING']);

    const again = await h.run(['plan', 'infra', '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('No changes.');
  }, 60_000);

  it('refuses a service two teams declare, in validate and plan alike, pointing at both files', async () => {
    h = await startHarness();
    h.write({ 'infra/platform.yaml': PLATFORM, 'infra/team-web.yaml': TEAM_WEB, 'infra/team-api.yaml': TEAM_API.replace('name: api\n', 'name: web\n') });
    for (const argv of [['validate', 'infra'], ['plan', 'infra']]) {
      const r = await h.run(argv);
      expect(r.code).toBe(1);
      const out = r.stdout + r.stderr;
      expect(out).toContain('service of environment `production`: `web` is declared twice');
      // The second declaration (team-web.yaml sorts after team-api.yaml) and the first.
      expect(out).toContain('infra/team-web.yaml:17:19');
      expect(out).toContain('It is also declared at infra/team-api.yaml:10:19');
    }
  });

  it('refuses an environment no file gives a cluster, naming every file that declares it', async () => {
    h = await startHarness();
    h.write({ 'infra/team-web.yaml': TEAM_WEB, 'infra/team-api.yaml': TEAM_API });
    const r = await h.run(['plan', 'infra']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('environment `production` of project `shop` is missing `cluster`');
    expect(r.stderr).toContain('It is declared at infra/team-api.yaml:7:9, infra/team-web.yaml:14:9');
  });

  it('exports what the team files built as a file per environment (also factored into a template) that plans clean', async () => {
    h = await startHarness();
    h.write({ 'infra/platform.yaml': PLATFORM, 'infra/team-web.yaml': TEAM_WEB, 'infra/team-api.yaml': TEAM_API });
    expect((await h.run(['apply', 'infra', '--auto-approve', ...FAST])).code).toBe(0);
    for (const [dir, extra] of [['exported', []], ['factored', ['--factor']]] as const) {
      const exp = await h.run(['export', '--out', dir, '--layout', 'directory', ...extra]);
      expect(exp.code, exp.stderr).toBe(0);
      expect(readdirSync(path.join(h.dir, dir)).sort()).toEqual(['organization.yaml', 'project-shop.production.yaml', 'project-shop.staging.yaml', 'project-shop.yaml']);
      const own = parse(readFileSync(path.join(h.dir, dir, 'project-shop.yaml'), 'utf8')).projects[0];
      expect(own.environments).toBeUndefined();
      // Factored: the services both environments run are written once, in the project's file.
      if (dir === 'factored') expect(own.templates[0].services.map((x: { name: string }) => x.name).sort()).toEqual(['api', 'web']);
      const plan = await h.run(['plan', dir, '--detailed-exitcode']);
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      expect(plan.stdout).toContain('No changes.');
    }
  }, 60_000);
});
