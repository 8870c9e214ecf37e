/** The two runtime helpers of the plan types: `--detailed-exitcode`'s test and the secret placeholder guard. */
import { describe, expect, it } from 'vitest';
import { PLAN_FORMAT_VERSION, isSensitivePlaceholder, planHasChanges, type Plan } from '../../src/plan/types.js';

const withSummary = (s: Partial<Plan['summary']>) => ({ summary: { add: 0, change: 0, destroy: 0, deploy: 0, unmanaged: 0, blocked: 0, ...s } }) as Plan;

describe('plan types', () => {
  it('a plan has changes when any one count that apply acts on is non-zero, alone; unmanaged objects alone are not changes', () => {
    expect(planHasChanges(withSummary({}))).toBe(false);
    for (const field of ['add', 'change', 'destroy', 'deploy', 'blocked'] as const) expect(planHasChanges(withSummary({ [field]: 1 })), field).toBe(true);
    expect(planHasChanges(withSummary({ unmanaged: 3 }))).toBe(false);
    expect(planHasChanges(withSummary({ add: 1, change: 2, destroy: 1, deploy: 1, blocked: 1 }))).toBe(true);
  });

  it('a sensitive placeholder is exactly {sensitive: true, fingerprint: string}', () => {
    expect(isSensitivePlaceholder({ sensitive: true, fingerprint: 'abc' })).toBe(true);
    expect(isSensitivePlaceholder({ sensitive: true, fingerprint: '' })).toBe(true);
    expect(isSensitivePlaceholder({ sensitive: 'true', fingerprint: 'abc' })).toBe(false);
    expect(isSensitivePlaceholder({ sensitive: false, fingerprint: 'abc' })).toBe(false);
    expect(isSensitivePlaceholder({ sensitive: true, fingerprint: 1 })).toBe(false);
    expect(isSensitivePlaceholder({ sensitive: true })).toBe(false);
    expect(isSensitivePlaceholder(null)).toBe(false);
    expect(isSensitivePlaceholder('sensitive')).toBe(false);
    expect(isSensitivePlaceholder(undefined)).toBe(false);
  });

  it('the plan file format version is 1.0', () => {
    expect(PLAN_FORMAT_VERSION).toBe('1.0');
  });
});
