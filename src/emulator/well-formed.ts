/**
 * Well-formed Unicode in request bodies. JSON escapes can carry a lone UTF-16 surrogate
 * (`"name": "\ud800"`), which no name or text of the platform can hold: it cannot be encoded as
 * UTF-8, so it would be stored as one thing and served as another (U+FFFD) or break a client.
 */

/** With the `u` flag a surrogate pair is one code point; only a lone surrogate is of category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

export function isWellFormedText(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

/**
 * The path (`alert_receiver.name`, `vars[2].value`; '' for the root) of the first string or key of
 * a parsed JSON value that is not well-formed Unicode, or undefined when every one is.
 */
export function firstMalformedString(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return isWellFormedText(value) ? undefined : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstMalformedString(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const here = path ? `${path}.${k}` : k;
      if (!isWellFormedText(k)) return here;
      const found = firstMalformedString(v, here);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
