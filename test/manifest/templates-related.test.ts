/**
 * Where an instantiated object was written, as plan and the checks point at it (instantiatedAt):
 * the template's definition, then the environment's override of it or its `template:` line; the
 * deployment stages of a template without the services an environment excludes; and the message
 * of an unknown template when the project declares none.
 */
import { describe, expect, it } from 'vitest';
import { instantiatedAt } from '../../src/manifest/templates.js';
import { fieldSourceOf } from '../../src/manifest/source-map.js';
import { loadText } from './helpers.js';
import { lineCol as at } from '../support/manifest-positions.js';

const TEXT = `version: 1
projects:
  - name: shop
    templates:
      - name: web
        variables:
          - {key: LOG, value: info}
        deployment_stages:
          - name: apps
            services: [api, debug, web]
        services:
          - type: container
            name: api
            registry: hub
            image_name: api
            tag: "1"
          - type: container
            name: debug
            registry: hub
            image_name: busybox
            tag: "1"
          - type: container
            name: web
            registry: hub
            image_name: nginx
            tag: "1"
    environments:
      - name: staging
        cluster: c1
        template: web
      - name: prod
        cluster: c1
        template: web
        exclude_services: [debug]
        overrides:
          services:
            api: {tag: "2"}
      - name: plain
        cluster: c1
        services:
          - type: container
            name: solo
            registry: hub
            image_name: solo
            tag: "1"
`;

describe('instantiatedAt', () => {
  it("names the template's definition and the override, or the template line, of an instantiated service and of what is inside it", async () => {
    const r = await loadText(TEXT);
    expect(r.diagnostics).toEqual([]);
    const places = (a: string) => instantiatedAt(r.templates, a)?.map((l) => `${l.message} ${at(l.range)}`);
    expect(places('project.shop/environment.prod/container.api')).toEqual(['defined 12:13', 'overridden 37:13']);
    expect(places('project.shop/environment.staging/container.api')).toEqual(['defined 12:13', 'instantiated 30:9']);
    // Something inside an instantiated service: the service's places.
    expect(places('project.shop/environment.staging/container.api/variable.X')).toEqual(['defined 12:13', 'instantiated 30:9']);
    expect(places('project.shop/environment.staging/variable.LOG')).toEqual(['defined 7:13', 'instantiated 30:9']);
    expect(places('project.shop/environment.staging/deployment_stage.apps')).toEqual(['defined 9:13', 'instantiated 30:9']);
    // Written out in full, or not there at all: nothing.
    expect(places('project.shop/environment.plain/container.solo')).toBeUndefined();
    expect(places('project.shop')).toBeUndefined();
    expect(instantiatedAt(undefined, 'project.shop/environment.prod/container.api')).toBeUndefined();
  });

  it('takes the excluded services out of the deployment stages, each kept service where the template lists it', async () => {
    const r = await loadText(TEXT);
    const prod = r.manifest!.projects![0]!.environments!.find((e) => e.name === 'prod')!;
    expect(prod.services!.map((s) => s.name)).toEqual(['api', 'web']);
    const stage = prod.deployment_stages![0]!;
    expect(stage.services).toEqual(['api', 'web']);
    expect(['0', '1'].map((i) => at(fieldSourceOf(stage.services, i)))).toEqual(['10:24', '10:36']);
    const staging = r.manifest!.projects![0]!.environments!.find((e) => e.name === 'staging')!;
    expect(staging.deployment_stages![0]!.services).toEqual(['api', 'debug', 'web']);
  });
});

describe('an unknown template', () => {
  it('says so when the project declares no template at all', async () => {
    const text = 'version: 1\nprojects:\n  - name: shop\n    environments:\n      - name: prod\n        cluster: c1\n        template: web\n';
    const r = await loadText(text);
    const d = r.diagnostics.find((x) => x.code === 'ref.unresolved')!;
    expect(d.summary).toBe('environment `prod` uses template `web`, which the project does not declare');
    expect(d.detail).toBe("Templates of this project: none (declare them under the project's `templates:`).");
    expect(d.address).toBe('project.shop/environment.prod');
  });
});
