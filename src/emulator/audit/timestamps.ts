/**
 * The audit log's timestamps: RFC 3339 in UTC with nanoseconds (`2026-11-25T16:23:04.123456789Z`),
 * the precision the reference gives `fromTimestamp`, `toTimestamp` and the page tokens. They are
 * compared as integers of nanoseconds since the epoch (bigint: 2^53 ns is only 104 days).
 */

const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/** Nanoseconds since the epoch of an RFC 3339 timestamp (0 to 9 fractional digits), or undefined. */
export function parseNanos(text: string): bigint | undefined {
  const m = ISO.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = '', zone] = m;
  const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`);
  if (!Number.isFinite(ms)) return undefined;
  // Date.parse rolls 2026-02-31 over to March: refuse dates that do not exist.
  const back = new Date(ms + (zone === 'Z' ? 0 : offsetMs(zone)));
  if (back.getUTCDate() !== Number(d) || back.getUTCMonth() + 1 !== Number(mo)) return undefined;
  return BigInt(ms) * 1_000_000n + BigInt(frac.padEnd(9, '0'));
}

function offsetMs(zone: string): number {
  const sign = zone.startsWith('-') ? -1 : 1;
  const [hh, mm] = zone.slice(1).split(':').map(Number);
  return sign * (hh * 60 + mm) * 60_000;
}

/** The RFC 3339 UTC text of a nanosecond instant, always with 9 fractional digits. */
export function formatNanos(ns: bigint): string {
  const ms = ns / 1_000_000n;
  const base = new Date(Number(ms)).toISOString().slice(0, 19);
  const frac = (ns % 1_000_000_000n).toString().padStart(9, '0');
  return `${base}.${frac}Z`;
}

/**
 * The next timestamp: the clock's time in nanoseconds, or one nanosecond after `previous` when the
 * clock has not moved past it (several events in one millisecond, a clock held by a test, a clock
 * set back), so that timestamps strictly increase and a cursor never skips or repeats an event.
 */
export function nextNanos(nowMs: number, previous: bigint | undefined): bigint {
  const now = BigInt(Math.floor(nowMs)) * 1_000_000n;
  return previous !== undefined && previous >= now ? previous + 1n : now;
}
