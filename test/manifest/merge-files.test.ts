/**
 * A project, and its environments, declared across several files of a manifest directory: one per
 * team. The files merge into the one plain manifest buildGraph reads; a name declared twice, an
 * attribute written twice and an environment nobody gave a cluster are errors that point at the
 * files (file:line:col each).
 */
import { describe, expect, it } from 'vitest';
import { fieldSourceOf, sourceOf } from '../../src/manifest/index.js';
import { load, tempTree } from './helpers.js';

const PLATFORM = `version: 1
projects:
  - name: shop
    description: The shop
    variables:
      - {key: REGION, value: eu-west-3}
    environments:
      - name: production
        mode: PRODUCTION
        cluster: production-cluster
        variables:
          - {key: LOG_LEVEL, value: warn}
        deployment_stages:
          - {name: databases}
`;

const TEAM_A = `version: 1
projects:
  - name: shop
    environments:
      - name: production
        services:
          - type: container
            name: web
            registry: docker-hub
            image_name: nginx
            tag: "1.27"
`;

const TEAM_B = `version: 1
projects:
  - name: shop
    variables:
      - {key: TEAM_B_FLAG, value: "on"}
    environments:
      - name: production
        deployment_stages:
          - {name: apps, services: [worker]}
        services:
          - type: container
            name: worker
            registry: docker-hub
            image_name: busybox
            tag: "1.36"
`;

describe('a project declared in several files', () => {
  it('is one project, one environment, with the lists of every file in file order and each entry located in its own file', async () => {
    const dir = tempTree({ '00-platform.yaml': PLATFORM, 'team-a.yaml': TEAM_A, 'team-b.yaml': TEAM_B });
    const r = await load(dir);
    expect(r.diagnostics).toEqual([]);
    const projects = r.manifest!.projects!;
    expect(projects).toHaveLength(1);
    const shop = projects[0]!;
    expect(shop.description).toBe('The shop');
    expect(shop.variables!.map((v) => v.key)).toEqual(['REGION', 'TEAM_B_FLAG']);
    expect(shop.environments).toHaveLength(1);
    const prod = shop.environments![0]!;
    expect(prod).toMatchObject({ name: 'production', mode: 'PRODUCTION', cluster: 'production-cluster' });
    expect(prod.services!.map((s) => s.name)).toEqual(['web', 'worker']);
    expect(prod.deployment_stages!.map((s) => s.name)).toEqual(['databases', 'apps']);
    expect(prod.variables!.map((v) => v.key)).toEqual(['LOG_LEVEL']);
    // Where each part was written: the service in its team's file, the cluster in the platform's.
    expect(sourceOf(prod.services![1])!.file).toBe('team-b.yaml');
    expect(fieldSourceOf(prod.services!, '0')!.file).toBe('team-a.yaml');
    expect(fieldSourceOf(prod, 'cluster')).toMatchObject({ file: '00-platform.yaml', start: { line: 10, col: 18 } });
    expect(fieldSourceOf(shop.variables!, '1')!.file).toBe('team-b.yaml');
    // The merged environment is where it was first declared.
    expect(sourceOf(prod)).toMatchObject({ file: '00-platform.yaml', start: { line: 8 } });
    // Nothing hidden leaks into the plain manifest.
    expect(Object.keys(prod)).toEqual(['name', 'mode', 'cluster', 'variables', 'deployment_stages', 'services']);
  });

  it('gives the same manifest whatever the order the files are given in, except list order', async () => {
    const dir = tempTree({ 'a.yaml': TEAM_A, 'p.yaml': PLATFORM });
    const r = await load(dir, ['a.yaml', 'p.yaml']);
    expect(r.diagnostics).toEqual([]);
    expect(r.manifest!.projects![0]!.environments![0]).toMatchObject({ name: 'production', cluster: 'production-cluster', mode: 'PRODUCTION' });
  });

  it('a service declared in two files is an error that points at both', async () => {
    const dir = tempTree({ 'p.yaml': PLATFORM, 'team-a.yaml': TEAM_A, 'team-c.yaml': TEAM_A.replace('name: web', 'name: WEB') });
    const r = await load(dir);
    expect(r.manifest).toBeUndefined();
    expect(r.diagnostics.map((d) => [d.code, d.summary, `${d.range!.file}:${d.range!.start.line}:${d.range!.start.col}`])).toEqual([
      ['manifest.duplicate', 'service of environment `production`: `WEB` is declared twice', 'team-c.yaml:8:19'],
    ]);
    expect(r.diagnostics[0]!.detail).toContain('team-a.yaml:8:19');
  });

  it('a variable key and a stage declared in two files are errors that point at both', async () => {
    const dir = tempTree({
      'p.yaml': PLATFORM,
      'q.yaml': 'projects:\n  - name: shop\n    variables:\n      - {key: REGION, value: us}\n    environments:\n      - name: production\n        deployment_stages:\n          - name: databases\n',
    });
    const r = await load(dir);
    const dups = r.diagnostics.map((d) => [d.summary, `${d.range!.file}:${d.range!.start.line}`, d.detail]);
    expect(dups).toEqual([
      ['variable `REGION` is declared twice', 'q.yaml:4', 'It is also declared at p.yaml:6:15. Remove or rename one of them.'],
      ['deployment stage of environment `production`: `databases` is declared twice', 'q.yaml:8', expect.stringContaining('p.yaml:14:20')],
    ]);
  });

  it('an attribute written in two files is an error that points at both, even with the same value', async () => {
    const dir = tempTree({
      'a.yaml': PLATFORM,
      'b.yaml': 'projects:\n  - name: shop\n    description: The shop\n    environments:\n      - name: production\n        cluster: other-cluster\n',
    });
    const r = await load(dir);
    expect(r.manifest).toBeUndefined();
    expect(r.diagnostics.map((d) => [d.code, d.summary, `${d.range!.file}:${d.range!.start.line}:${d.range!.start.col}`, d.detail])).toEqual([
      ['manifest.conflict', '`description` of project `shop` is written in more than one file', 'b.yaml:3:5', expect.stringContaining('It is also written at a.yaml:4:5.')],
      ['manifest.conflict', '`cluster` of environment `production` of project `shop` is written in more than one file', 'b.yaml:6:9', expect.stringContaining('It is also written at a.yaml:10:9.')],
    ]);
    // With its article (issue 19: "A environment may be declared ...").
    expect(r.diagnostics.map((d) => d.detail)).toEqual([
      expect.stringContaining('. A project may be declared in several files, but each of its attributes in one of them only'),
      expect.stringContaining('. An environment may be declared in several files, but each of its attributes in one of them only'),
    ]);
  });

  it('a name spelled differently in two files is an error (names are case-insensitive)', async () => {
    const dir = tempTree({ 'a.yaml': PLATFORM, 'b.yaml': TEAM_A.replace('- name: shop', '- name: Shop') });
    const r = await load(dir);
    expect(r.diagnostics.map((d) => [d.code, d.summary, `${d.range!.file}:${d.range!.start.line}:${d.range!.start.col}`])).toEqual([
      ['manifest.conflict', 'project `Shop` is spelled `shop` in another file', 'b.yaml:3:11'],
    ]);
    expect(r.diagnostics[0]!.detail).toContain('a.yaml:3:11');
  });

  it('inside one file a project is declared once: a second declaration stays a duplicate', async () => {
    const dir = tempTree({ 'm.yaml': 'projects:\n  - name: shop\n  - name: shop\n' });
    const r = await load(dir);
    expect(r.diagnostics.map((d) => [d.code, `${d.range!.file}:${d.range!.start.line}`])).toEqual([['manifest.duplicate', 'm.yaml:3']]);
  });

  it('an environment left without a cluster by every file names all its declarations; validate says the same', async () => {
    const dir = tempTree({ 'team-a.yaml': TEAM_A, 'team-b.yaml': TEAM_B });
    const r = await load(dir);
    expect(r.manifest).toBeUndefined();
    expect(r.diagnostics.map((d) => [d.code, d.summary, `${d.range!.file}:${d.range!.start.line}`, d.address])).toEqual([
      ['schema.missing-key', 'environment `production` of project `shop` is missing `cluster`', 'team-a.yaml:5', 'project.shop/environment.production'],
    ]);
    expect(r.diagnostics[0]!.detail).toContain('It is declared at team-a.yaml:5:9, team-b.yaml:7:9');
    // One file, one declaration: the same error, at it.
    const one = await load(tempTree({ 'm.yaml': TEAM_A }));
    expect(one.diagnostics.map((d) => [d.code, `${d.range!.file}:${d.range!.start.line}`])).toEqual([['schema.missing-key', 'm.yaml:5']]);
    expect(one.diagnostics[0]!.detail).toContain('or in another file of the manifest directory that declares environment `production` of project `shop`');
  });

  it('counts the cluster a file writes even when that file fails the schema; says nothing of it when a file is not YAML', async () => {
    const typo = await load(tempTree({ 'a.yaml': TEAM_A, 'b.yaml': PLATFORM.replace('description:', 'descripton:') }));
    expect(typo.diagnostics.map((d) => d.code)).toEqual(['schema.unknown-key']);
    // A file that fails the schema and is the only one to declare the environment: both problems.
    const alone = await load(tempTree({ 'a.yaml': TEAM_A.replace('tag: "1.27"', 'tags: "1.27"') }));
    expect(alone.diagnostics.map((d) => `${d.code} ${d.range!.start.line}`)).toEqual(['schema.missing-key 5', 'schema.missing-key 7', 'schema.unknown-key 11']);
    // The broken file may be where the cluster is written.
    const notYaml = await load(tempTree({ 'a.yaml': TEAM_A, 'b.yaml': 'projects: [\n' }));
    expect(notYaml.diagnostics.filter((d) => d.code === 'schema.missing-key')).toEqual([]);
    expect(notYaml.manifest).toBeUndefined();
  });
});

const TEMPLATE_PLATFORM = `version: 1
projects:
  - name: shop
    templates:
      - name: stack
        variables:
          - {key: LOG_LEVEL, value: info}
    environments:
      - name: staging
        cluster: staging-cluster
        template: stack
      - name: production
        cluster: production-cluster
        template: stack
        overrides:
          variables:
            - {key: LOG_LEVEL, value: warn}
`;

const templateTeam = (service: string, prodTag: string) => `version: 1
projects:
  - name: shop
    templates:
      - name: stack
        services:
          - {type: container, name: ${service}, registry: docker-hub, image_name: library/${service}, tag: "1"}
    environments:
      - name: production
        overrides:
          services:
            ${service}: {tag: "${prodTag}"}
`;

describe('a template and its overrides written by several teams', () => {
  it('is one template: each team adds its services, and overrides them in production from its own file', async () => {
    const dir = tempTree({ 'platform.yaml': TEMPLATE_PLATFORM, 'team-a.yaml': templateTeam('web', '2'), 'team-b.yaml': templateTeam('worker', '3') });
    const r = await load(dir);
    expect(r.diagnostics).toEqual([]);
    const envs = new Map(r.manifest!.projects![0]!.environments!.map((e) => [e.name, e]));
    const tags = (env: string) => envs.get(env)!.services!.map((s) => `${s.name}:${(s as { tag: string }).tag}`);
    expect(tags('staging')).toEqual(['web:1', 'worker:1']);
    expect(tags('production')).toEqual(['web:2', 'worker:3']);
    expect(envs.get('production')!.variables!.map((v) => `${v.key}=${String(v.value)}`)).toEqual(['LOG_LEVEL=warn']);
    // The instantiated service is located in its team's file.
    expect(sourceOf(envs.get('production')!.services![1])!.file).toBe('team-b.yaml');
  });

  it('an override of one service written by two files is an error that points at both', async () => {
    const dir = tempTree({ 'platform.yaml': TEMPLATE_PLATFORM, 'team-a.yaml': templateTeam('web', '2'), 'team-b.yaml': templateTeam('worker', '3').replace('worker: {tag', 'WEB: {tag') });
    const r = await load(dir);
    expect(r.manifest).toBeUndefined();
    expect(r.diagnostics.map((d) => [d.code, d.summary, `${d.range!.file}:${d.range!.start.line}:${d.range!.start.col}`])).toEqual([
      ['manifest.conflict', '`overrides.services.WEB` of environment `production` of project `shop` is written in more than one file', 'team-b.yaml:12:13'],
    ]);
    expect(r.diagnostics[0]!.detail).toContain('It is also written at team-a.yaml:12:13.');
  });

  it('a template attribute written by two files is an error that points at both', async () => {
    const dir = tempTree({
      'a.yaml': TEMPLATE_PLATFORM.replace('      - name: stack\n', '      - name: stack\n        description: one\n'),
      'b.yaml': templateTeam('web', '2').replace('      - name: stack\n', '      - name: stack\n        description: two\n'),
    });
    const r = await load(dir);
    expect(r.diagnostics.map((d) => [d.summary, `${d.range!.file}:${d.range!.start.line}`])).toEqual([
      ['`description` of template `stack` of project `shop` is written in more than one file', 'b.yaml:6'],
    ]);
  });

  it('a variable override of one key written by two files is an error that points at both', async () => {
    const team = templateTeam('web', '2').replace('        overrides:\n', '        overrides:\n          variables:\n            - {key: LOG_LEVEL, value: error}\n');
    const r = await load(tempTree({ 'platform.yaml': TEMPLATE_PLATFORM, 'team-a.yaml': team }));
    expect(r.diagnostics.map((d) => [d.code, d.summary, `${d.range!.file}:${d.range!.start.line}:${d.range!.start.col}`])).toEqual([
      ['manifest.duplicate', 'environment `production` overrides variable `LOG_LEVEL` twice', 'team-a.yaml:12:21'],
    ]);
    expect(r.diagnostics[0]!.detail).toContain('It is also overridden at platform.yaml:17:21.');
  });
});
