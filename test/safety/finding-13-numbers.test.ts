/**
 * Finding 13 (numbers): `cpu: 1e308` or an integer beyond 2^53 passed validate and plan (YAML
 * reads 1e308 as a number without a fraction, and 9007199254740993 silently becomes
 * 9007199254740992), then failed at apply after the project and environment were created. Now
 * every number must be finite and exact (within ±(2^53 - 1)) and within its field's documented
 * range, at validate time with file:line:col; plan and apply stop before any write.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function container(fields: string): string {
  return `version: 1
projects:
  - name: numbers
    environments:
      - name: dev
        cluster: staging-cluster
        services:
          - type: container
            name: web
            registry: docker-hub
            image_name: library/nginx
            tag: "1.27"
${fields}`;
}

function lineOf(text: string, needle: string): number {
  return text.split('\n').findIndex((l) => l.includes(needle)) + 1;
}

describe('finding 13: numbers as the platform takes them', () => {
  it('finding 13: cpu 1e308 and memory 9007199254740993 fail validate at file:line:col, and plan and apply write nothing', async () => {
    h = await startHarness();
    const text = container('            cpu: 1e308\n            memory: 9007199254740993\n');
    h.write({ 'm/main.yaml': text });
    const v = await h.run(['validate', 'm']);
    expect(v.code).toBe(1);
    expect(v.stderr).toContain(`m/main.yaml:${lineOf(text, 'cpu: 1e308')}:18`);
    expect(v.stderr).toContain('`cpu` is too large: read as 1e+308');
    expect(v.stderr).toContain(`m/main.yaml:${lineOf(text, 'memory:')}:21`);
    // The rounding is named: what YAML made of the number is not what was written.
    expect(v.stderr).toContain('`memory` is too large: read as 9007199254740992');

    const plan = await h.run(['plan', 'm']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('schema.bad-number');
    const apply = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(apply.code).toBe(1);
    expect(Object.keys(h.emu.state.projects)).toHaveLength(0);
    expect(Object.keys(h.emu.state.environments)).toHaveLength(0);
  });

  it('finding 13: infinite values and numbers out of a field\'s documented range fail validate', async () => {
    h = await startHarness();
    const cases: Array<[string, RegExp]> = [
      ['            cpu: .inf\n', /`cpu` of container `web` must be an integer, not infinite/],
      ['            ports:\n              - internal_port: 70000\n', /internal_port.*65535|65535.*internal_port/],
      ['            min_running_instances: -1\n', /min_running_instances/],
      ['            storage:\n              - mount_point: /data\n                size: 2\n', /size/],
    ];
    for (const [fields, message] of cases) {
      h.write({ 'm/main.yaml': container(fields) });
      const r = await h.run(['validate', 'm']);
      expect(r.code, fields).toBe(1);
      expect(r.stderr, fields).toMatch(message);
      expect(r.stderr, fields).toMatch(/m\/main\.yaml:\d+:\d+/);
    }
    h.write({
      'm/main.yaml': `version: 1
alert_receivers:
  - {name: ops, type: SLACK, webhook_url: "https://hooks.slack.com/services/x"}
alert_rules:
  - name: too-high
    target: {cluster: production-cluster}
    condition: {promql: up, threshold: 1e308}
    severity: LOW
    receivers: [ops]
`,
    });
    const r = await h.run(['validate', 'm']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('m/main.yaml:7:40');
    expect(r.stderr).toContain('`threshold` is too large');
  });

  it('finding 13: exact numbers at the limits of their range pass and apply', async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': container('            cpu: 250\n            memory: 256\n            ports:\n              - internal_port: 65535\n') });
    const v = await h.run(['validate', 'm']);
    expect(v.code, v.stderr).toBe(0);
    const apply = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const web = Object.values(h.emu.state.services).find((s) => s.name === 'web') as { cpu?: number; ports?: Array<{ internal_port: number }> };
    expect(web.cpu).toBe(250);
    expect(web.ports?.[0]?.internal_port).toBe(65535);
  });
});
