/**
 * Finding 4: cron schedules and time zones were not checked. `scheduled_at: "0 25 * * 1-5"` and
 * `timezone: Europe/Pariss` passed validate and plan, and the first was even applied and deployed.
 * Now every cron field is checked against its range (croner) and every time zone against the IANA
 * database, at validate time, with file:line:col and a suggestion for a near miss; plan and apply
 * stop before any request that writes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function cronJob(scheduledAt: string, timezone: string): string {
  return `version: 1
projects:
  - name: reports
    environments:
      - name: prod
        mode: PRODUCTION
        cluster: production-cluster
        services:
          - type: job
            name: nightly-report
            source:
              image:
                registry: docker-hub
                image_name: acme/report
                tag: "3"
            schedule:
              cron:
                scheduled_at: "${scheduledAt}"
                timezone: ${timezone}
`;
}

/** 1-based line and column of `needle` in `text`, computed from the text. */
function at(text: string, needle: string): string {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l.includes(needle));
  return `${i + 1}:${lines[i]!.indexOf(needle) + 1}`;
}

describe('finding 4: cron schedules and time zones are checked', () => {
  it('finding 4: "0 25 * * 1-5" and Europe/Pariss fail validate with file:line:col, the range and a suggestion', async () => {
    h = await startHarness();
    const text = cronJob('0 25 * * 1-5', 'Europe/Pariss');
    h.write({ 'm/jobs.yaml': text });
    const r = await h.run(['validate', 'm']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Invalid manifest');
    expect(r.stderr).toContain(`m/jobs.yaml:${at(text, '"0 25 * * 1-5"')}`);
    expect(r.stderr).toContain('the hour field `25` of `0 25 * * 1-5` is not valid');
    expect(r.stderr).toContain('The hour takes 0-23');
    expect(r.stderr).toContain(`m/jobs.yaml:${at(text, 'Europe/Pariss')}`);
    expect(r.stderr).toContain('`Europe/Pariss` is not an IANA time zone');
    expect(r.stderr).toContain('Did you mean `Europe/Paris`?');
  });

  it('finding 4: plan and apply refuse them and nothing is created or deployed', async () => {
    h = await startHarness();
    for (const [cron, tz] of [['0 25 * * 1-5', 'Europe/Paris'], ['0 3 * * *', 'Europe/Pariss']]) {
      h.write({ 'm/jobs.yaml': cronJob(cron!, tz!) });
      const plan = await h.run(['plan', 'm', '--detailed-exitcode']);
      expect(plan.code, plan.stdout).toBe(1);
      expect(plan.stderr).toMatch(/schema\.bad-(cron|timezone)/);
      const apply = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
      expect(apply.code).toBe(1);
      expect(Object.keys(h.emu.state.projects)).toHaveLength(0);
      expect(Object.keys(h.emu.state.services)).toHaveLength(0);
    }
  });

  it('finding 4: each field is checked against its own range, and what the platform takes still passes', async () => {
    h = await startHarness();
    const bad: Array<[string, string]> = [
      ['60 * * * *', 'minute'],
      ['* * 32 * *', 'day of month'],
      ['* * 0 * *', 'day of month'],
      ['* * * 13 *', 'month'],
      ['* * * * 8', 'day of week'],
      ['*/0 * * * *', 'minute'],
      ['5-1 * * * *', 'minute'],
    ];
    for (const [cron, field] of bad) {
      h.write({ 'm/jobs.yaml': cronJob(cron, 'Etc/UTC') });
      const r = await h.run(['validate', 'm']);
      expect(r.code, cron).toBe(1);
      expect(r.stderr, cron).toContain(`the ${field} field`);
    }
    const good: Array<[string, string]> = [
      ['0 3 * * *', 'Europe/Paris'],
      ['*/15 9-17 * * MON-FRI', 'America/New_York'],
      ['30 1 1,15 JAN-JUN 0', 'UTC'],
      ['@daily', 'Etc/UTC'],
      ['@hourly', 'Asia/Kolkata'],
    ];
    for (const [cron, tz] of good) {
      h.write({ 'm/jobs.yaml': cronJob(cron, tz) });
      const r = await h.run(['validate', 'm']);
      expect(r.code, `${cron} ${tz}: ${r.stderr}`).toBe(0);
    }
    // ...and one of them plans and applies.
    const apply = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const job = Object.values(h.emu.state.services).find((s) => s.name === 'nightly-report') as { schedule?: { cronjob?: { scheduled_at?: string; timezone?: string } } };
    expect(job.schedule?.cronjob).toMatchObject({ scheduled_at: '@hourly', timezone: 'Asia/Kolkata' });
  });
});
