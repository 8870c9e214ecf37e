/** The audit log's nanosecond timestamps: parsing (any offset, 0..9 digits), formatting, ordering. */
import { describe, expect, it } from 'vitest';
import { formatNanos, nextNanos, parseNanos } from '../../src/emulator/audit/timestamps.js';

describe('audit timestamps', () => {
  it('parse RFC 3339 with 0 to 9 fractional digits and any offset, to nanoseconds since the epoch', () => {
    expect(parseNanos('1970-01-01T00:00:00Z')).toBe(0n);
    expect(parseNanos('1970-01-01T00:00:01.5Z')).toBe(1_500_000_000n);
    expect(parseNanos('1970-01-01T00:00:00.000000001Z')).toBe(1n);
    expect(parseNanos('2026-11-25T18:23:04.123456789+02:00')).toBe(parseNanos('2026-11-25T16:23:04.123456789Z'));
    expect(parseNanos('2026-11-25T13:53:04.123456789-02:30')).toBe(parseNanos('2026-11-25T16:23:04.123456789Z'));
  });

  it('refuse what is not such a timestamp, or a date that does not exist', () => {
    for (const bad of ['', 'yesterday', '2026-11-25', '2026-11-25 16:23:04Z', '2026-11-25T16:23:04', '2026-11-25T16:23:04.1234567891Z', '2026-02-31T00:00:00Z', '2026-02-29T00:00:00Z', '2026-13-01T00:00:00Z', '2026-11-25T24:00:01Z']) {
      expect(parseNanos(bad), bad).toBeUndefined();
    }
    expect(parseNanos('2028-02-29T00:00:00Z')).toBeDefined();
  });

  it('format with exactly 9 fractional digits, in UTC, and read back the same instant', () => {
    const ns = parseNanos('2026-11-25T16:23:04.000000042Z')!;
    expect(formatNanos(ns)).toBe('2026-11-25T16:23:04.000000042Z');
    expect(formatNanos(0n)).toBe('1970-01-01T00:00:00.000000000Z');
    for (const text of ['2026-11-25T16:23:04.987654321Z', '1999-12-31T23:59:59.999999999Z']) expect(formatNanos(parseNanos(text)!)).toBe(text);
    // Text order is time order, so timestamps compare as strings too.
    expect(formatNanos(999_999_999n) < formatNanos(1_000_000_000n)).toBe(true);
  });

  it('strictly increase: the clock when it moved on, one nanosecond later when it did not', () => {
    const t = Date.parse('2026-11-25T16:00:00Z');
    const a = nextNanos(t, undefined);
    expect(a).toBe(BigInt(t) * 1_000_000n);
    expect(nextNanos(t, a)).toBe(a + 1n);
    expect(nextNanos(t - 5000, a + 1n)).toBe(a + 2n);
    expect(nextNanos(t + 1, a + 2n)).toBe(a + 1_000_000n);
  });
});
