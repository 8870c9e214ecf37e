/**
 * Alert rules and receivers of the realistic example: updated in place (a rule's edit body is the
 * live record with the manifest's fields over it), a receiver's secret rotated, then converged.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const ENV = {
  STRIPE_API_KEY: 'sk_test_example',
  SESSION_SECRET: 'session-example',
  SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T000/B000/first',
  WEBHOOK_SIGNING_SECRET: 'whsec_example',
};

describe('alert rules and receivers', () => {
  it('are updated in place, the receiver validated again before its new URL is saved, and converge', async () => {
    h = await startHarness();
    cpSync(join(import.meta.dirname, '../../examples/realistic'), join(h.dir, 'r'), { recursive: true });
    expect((await h.run(['apply', 'r', '--auto-approve', ...FAST], { env: ENV })).code).toBe(0);
    const rule = Object.values(h.emu.state.alertRules)[0]!;

    const file = join(h.dir, 'r/alerts.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('threshold: 0.8', 'threshold: 0.9').replace('severity: HIGH', 'severity: CRITICAL'));
    const env = { ...ENV, SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T000/B000/second' };
    const r = await h.run(['apply', 'r', '--auto-approve', ...FAST], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('alert_rule.shop-api-high-cpu: Modifications complete');
    expect(r.stdout).toContain('alert_receiver.shop-oncall: Modifications complete');
    const after = h.emu.state.alertRules[rule.id]!;
    expect(after).toMatchObject({ severity: 'CRITICAL', condition: { threshold: 0.9, operator: 'ABOVE' }, target: rule.target, alert_receiver_ids: rule.alert_receiver_ids });
    // validated once at creation, once before the new URL was saved
    expect(h.emu.state.receiverValidations).toHaveLength(2);
    const receiverId = Object.keys(h.emu.state.alertReceivers)[0]!;
    expect(h.emu.state.alertReceiverSecrets[receiverId]).toEqual({ webhook_url: env.SLACK_WEBHOOK_URL });
    expect((await h.run(['plan', 'r'], { env })).stdout).toContain('No changes.');
    expect(r.stdout + r.stderr).not.toContain('B000/second');
  });
});
