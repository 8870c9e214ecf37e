/**
 * JSON.parse for files driftless reads back (the refresh cache, a saved plan file), with a fixed
 * limit on nesting: a file nested deeper than anything driftless writes is refused with a reason
 * instead of parsed. A 200,000-deep array parses, but every recursive walk after it (JSON.stringify
 * of a checksum, structuredClone, the plan's own comparisons) dies with "Maximum call stack size
 * exceeded", so the depth is checked first, by a loop over the text (no recursion, no allocation).
 *
 * The limit leaves room for every file driftless writes: manifest values are at most 64 deep
 * (src/manifest/parse-yaml.ts) and sit a few levels inside a plan file or an API answer.
 */

export const MAX_JSON_DEPTH = 128;

export type BoundedJson = { value: unknown } | { problem: string };

/** The parsed text, or why it is not read: not JSON, or nested deeper than `maxDepth`. */
export function parseBoundedJson(text: string, maxDepth: number = MAX_JSON_DEPTH): BoundedJson {
  const deep = nestingBeyond(text, maxDepth);
  if (deep !== undefined) return { problem: `nested deeper than ${maxDepth} levels (at character ${deep + 1})` };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { problem: 'not JSON' };
  }
}

/**
 * The offset of the first `[` or `{` that opens level maxDepth + 1, or undefined. Brackets inside
 * strings do not count; the text need not be valid JSON (JSON.parse judges that afterwards).
 */
export function nestingBeyond(text: string, maxDepth: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) return i;
    } else if ((c === 0x5d /* ] */ || c === 0x7d) /* } */ && depth > 0) depth--;
  }
  return undefined;
}
