/**
 * Numbers as the platform takes them. JSON numbers are doubles: `1e308` is a valid JSON "integer"
 * for ajv (Number.isInteger(1e308) is true), and the schemas of schemas/api, like the reference,
 * bound few fields. The platform stores integer fields as signed 32-bit integers, and a number
 * beyond 2^53 cannot be carried exactly by JSON between implementations (RFC 7493, I-JSON 2.2), so
 * every numeric field of a request has a range: a field's own minimum/maximum where its schema
 * gives one, else these defaults. Values out of range are a 400 naming the field and the range.
 */
export const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;
export const NUMBER_LIMIT = Number.MAX_SAFE_INTEGER;

type Schema = Record<string, unknown>;

/** A copy of a request schema in which every integer and number has both bounds. */
export function withNumericBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withNumericBounds);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema as Schema)) {
    // `properties` and `definitions` map names to schemas; `enum`/`default`/`example` hold values.
    out[k] = k === 'enum' || k === 'default' || k === 'example' ? v : withNumericBounds(v);
  }
  const [min, max] = out.type === 'integer' ? [INT32_MIN, INT32_MAX] : out.type === 'number' ? [-NUMBER_LIMIT, NUMBER_LIMIT] : [undefined, undefined];
  if (min !== undefined && out.minimum === undefined && out.exclusiveMinimum === undefined) out.minimum = min;
  if (max !== undefined && out.maximum === undefined && out.exclusiveMaximum === undefined) out.maximum = max;
  return out;
}

/** "from 1 to 65535", "at least 1", "at most 1000": the allowed range a schema states. */
export function describeRange(schema: { minimum?: unknown; maximum?: unknown } | undefined): string | undefined {
  if (!schema) return undefined;
  const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  if (min !== undefined && max !== undefined) return `from ${min} to ${max}`;
  if (min !== undefined) return `at least ${min}`;
  if (max !== undefined) return `at most ${max}`;
  return undefined;
}

/**
 * The path of the first number of a parsed JSON value beyond ±(2^53 - 1), or undefined. Covers the
 * free-form parts of bodies (KEDA autoscaling, advanced settings) that no schema types.
 */
export function firstUnsafeNumber(value: unknown, path = ''): string | undefined {
  if (typeof value === 'number') return Math.abs(value) <= NUMBER_LIMIT ? undefined : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstUnsafeNumber(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const found = firstUnsafeNumber(v, path ? `${path}.${k}` : k);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
