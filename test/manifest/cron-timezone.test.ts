import { describe, expect, it } from 'vitest';
import { cronProblem } from '../../src/manifest/cron.js';
import { timeZoneProblem } from '../../src/manifest/timezone.js';
import { load, tempTree } from './helpers.js';

describe('cronProblem: the schedules a Kubernetes CronJob takes', () => {
  it.each([
    '0 3 * * *',
    '*/15 * * * *',
    '30 1 * * 1-5',
    '0 0 1,15 * *',
    '0-59/5 9-17 * JAN-MAR MON-FRI',
    '0 0 ? * SUN',
    '0 0 * * */7',
    '0 0 * * 0,6',
    '  0 3 * * *  ',
    '@yearly',
    '@annually',
    '@monthly',
    '@weekly',
    '@daily',
    '@midnight',
    '@hourly',
  ])('accepts %j', (expr) => {
    expect(cronProblem(expr)).toBeUndefined();
  });

  it.each([
    ['0 25 * * 1-5', 'the hour field `25`', '0-23'],
    ['60 * * * *', 'the minute field `60`', '0-59'],
    ['* * 32 * *', 'the day of month field `32`', '1-31'],
    ['* * 0 * *', 'the day of month field `0`', '1-31'],
    ['* * * 13 *', 'the month field `13`', '1-12'],
    ['* * * 0 *', 'the month field `0`', '1-12'],
    ['* * * * 8', 'the day of week field `8`', '0-6'],
    ['*/0 * * * *', 'the minute field `*/0`', 'steps'],
    ['5-1 * * * *', 'the minute field `5-1`', 'low to high'],
    ['* * * FOO *', 'the month field `FOO`', 'JAN-DEC'],
  ])('refuses %j, naming the field and its range', (expr, summary, allowed) => {
    const p = cronProblem(expr);
    expect(p?.summary).toContain(summary);
    expect(p?.detail).toContain(allowed);
  });

  it.each(['0 0 L * *', '0 0 15W * *', '0 0 * * 5#2', '0 0 * * 5L', '0 0 LW * *'])('refuses the Quartz extension in %j', (expr) => {
    expect(cronProblem(expr)?.summary).toContain('uses L, W or #');
  });

  it.each(['0 0 * * 7', '0 0 * * 5-7', '0 0 * * 1,7', '0 0 * * SUN,7'])('refuses 7 for Sunday in %j (Kubernetes takes 0-6)', (expr) => {
    expect(cronProblem(expr)?.summary).toContain('uses 7');
  });

  it('refuses a wrong number of fields and an unknown macro, listing what is allowed', () => {
    expect(cronProblem('0 0 * * * *')?.summary).toBe('`0 0 * * * *` has 6 fields; a cron schedule has 5');
    expect(cronProblem('@reboot')?.summary).toBe('`@reboot` is not a cron macro the platform takes');
    expect(cronProblem('@every 5m')?.detail).toContain('@hourly');
  });
});

describe('timeZoneProblem: the IANA time zone database', () => {
  it.each(['Europe/Paris', 'America/New_York', 'Asia/Tokyo', 'UTC', 'Etc/UTC', 'Etc/GMT+5', 'US/Eastern', 'Asia/Calcutta'])('accepts %j', (tz) => {
    expect(timeZoneProblem(tz)).toBeUndefined();
  });

  it('suggests the nearest name for a near miss', () => {
    expect(timeZoneProblem('Europe/Pariss')).toMatchObject({ summary: '`Europe/Pariss` is not an IANA time zone', suggestion: 'Europe/Paris' });
    expect(timeZoneProblem('America/New_Yrok')?.suggestion).toBe('America/New_York');
    expect(timeZoneProblem('Europe/Pariss')?.detail).toContain('Did you mean `Europe/Paris`?');
  });

  it('refuses the wrong case (names are case-sensitive on the platform), offsets and nonsense', () => {
    expect(timeZoneProblem('europe/paris')).toMatchObject({ suggestion: 'Europe/Paris' });
    expect(timeZoneProblem('utc')?.suggestion).toBe('UTC');
    expect(timeZoneProblem('+01:00')?.summary).toBe('`+01:00` is not an IANA time zone');
    expect(timeZoneProblem('')).toBeDefined();
    expect(timeZoneProblem('Mars/Olympus_Mons')?.suggestion).toBeUndefined();
  });
});

describe('schedules in a loaded manifest', () => {
  const job = (tz: string) => `version: 1
projects:
  - name: p
    environments:
      - name: e
        cluster: c
        services:
          - type: job
            name: j
            source: {image: {registry: r, image_name: i, tag: "1"}}
            schedule: {cron: {scheduled_at: "0 3 * * *", timezone: "${tz}"}}
`;
  it('checks a time zone that comes from ${env:...} once resolved, and leaves an unset one to its warning', async () => {
    const dir = tempTree({ 'm.yaml': job('${env:JOB_TZ}') });
    const bad = await load(dir, ['m.yaml'], { env: { JOB_TZ: 'Europe/Pariss' } });
    expect(bad.diagnostics.map((d) => [d.code, d.range?.start.line])).toEqual([['schema.bad-timezone', 11]]);
    const good = await load(dir, ['m.yaml'], { env: { JOB_TZ: 'Europe/Paris' } });
    expect(good.diagnostics).toEqual([]);
    const offline = await load(dir, ['m.yaml'], { env: {}, missingEnv: 'warning' });
    expect(offline.diagnostics.map((d) => [d.severity, d.code])).toEqual([['warning', 'ref.env-missing']]);
  });
});
