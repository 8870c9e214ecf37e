/**
 * A reference to an object removed from the manifest is not "fixed" by pointing it at another one
 * (issue 19: removing a service an alert rule targets suggested "Did you mean checkout-web?"). A
 * misspelt name still gets its suggestion.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nearestTypo } from '../../src/manifest/suggest.js';
import { run, tempDir } from '../export/helpers.js';

const manifest = (services: string[], target: string) => `version: 1
alert_receivers:
  - name: oncall
    type: SLACK
    webhook_url: https://hooks.example.com/T000
alert_rules:
  - name: checkout-errors
    target: { project: shop, environment: production, service: ${target} }
    condition: { kind: CUSTOM, promql: "sum(rate(errors[5m]))", operator: ABOVE, threshold: 1, function: AVG }
    for_duration: PT5M
    severity: HIGH
    receivers: [oncall]
    presentation: { summary: checkout errors }
projects:
  - name: shop
    environments:
      - name: production
        cluster: production-cluster
        deployment_stages:
          - name: apps
            services: [${target}]
        services:
${services.map((s) => `          - { type: container, name: ${s}, registry: docker-hub, image_name: acme/${s}, tag: "1" }`).join('\n')}
`;

async function validate(text: string) {
  const tmp = tempDir('driftless-removed-');
  try {
    writeFileSync(path.join(tmp.dir, 'm.yaml'), text);
    return await run(['validate', 'm.yaml'], {}, tmp.dir);
  } finally {
    tmp.cleanup();
  }
}

describe('a reference to a removed service', () => {
  it('the manifest is valid with the service', async () => {
    const ok = await validate(manifest(['checkout-web', 'checkout-api'], 'checkout-api'));
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('says the alert rule watches a removed service, and suggests no other service', async () => {
    const r = await validate(manifest(['checkout-web'], 'checkout-api'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[ref.unresolved]: service `checkout-api` does not exist in environment `production`');
    expect(r.stderr).not.toContain('Did you mean');
    expect(r.stderr).toContain('If `checkout-api` was removed from the manifest, alert rule `checkout-errors` watches a service that is gone: remove the rule with it');
    expect(r.stderr).toContain('If `checkout-api` was removed from the manifest, remove it from stage `apps` too.');
  });

  it('suggests no service that only adds a word to the removed one', async () => {
    const r = await validate(manifest(['checkout-web'], 'checkout'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[ref.unresolved]: service `checkout` does not exist in environment `production`');
    expect(r.stderr).not.toContain('Did you mean');
    expect(r.stderr).toContain('If `checkout` was removed from the manifest, alert rule `checkout-errors` watches a service that is gone');
  });

  it('still suggests the name for a misspelling', async () => {
    const r = await validate(manifest(['checkout-web'], 'checkout-wbe'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Did you mean `checkout-web`?');
    expect(r.stderr).not.toContain('was removed from the manifest');
  });
});

describe('nearestTypo', () => {
  it('offers a misspelling, never a name with another word in it', () => {
    expect(nearestTypo('checkout-api', ['checkout-web'])).toBeUndefined();
    expect(nearestTypo('checkout-api', ['checkout-ui'])).toBeUndefined();
    expect(nearestTypo('checkout-wbe', ['checkout-web'])).toBe('checkout-web');
    expect(nearestTypo('stagging-cluster', ['staging-cluster', 'production-cluster'])).toBe('staging-cluster');
    expect(nearestTypo('dockerhub', ['docker-hub'])).toBe('docker-hub');
    expect(nearestTypo('serach', ['search'])).toBe('search');
    // A word added or left out is another object, not a slip (issue 19: "Did you mean checkout-web?").
    expect(nearestTypo('checkout', ['checkout-web'])).toBeUndefined();
    expect(nearestTypo('api', ['api-v2', 'postgres'])).toBeUndefined();
    expect(nearestTypo('checkout-web', ['checkout'])).toBeUndefined();
    expect(nearestTypo('dokerhub', ['docker-hub'])).toBe('docker-hub');
    expect(nearestTypo('staging_cluster', ['staging-cluster'])).toBe('staging-cluster');
  });
});
