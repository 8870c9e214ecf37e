/** Quoting user text in check messages: clipped, and never a credential written into a URL. */

/** `"text"`, cut to a readable length. */
export function quote(s: string): string {
  return JSON.stringify(s.length > 60 ? s.slice(0, 57) + '...' : s);
}

/** A URL without the `user:password@` part some people write into git URLs. */
export function withoutCredentials(s: string): string {
  return s.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1***@');
}

/** A list of names for a message: all of them when few, else the first ones and a count. */
export function nameList(names: readonly string[], max = 30): string {
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}
