/**
 * Names that differ only by look-alike characters (`shop` and `ѕhop`, whose first letter is
 * Cyrillic): the skeleton of Unicode's UTS #39 (section 4, "Confusable Detection"), with the data
 * of ./confusables-data.ts:
 *
 *   skeleton(X) = NFD(map each character of NFD(X) to its prototype)
 *
 * Two strings are confusable when their skeletons are equal. NOTE: the data is the subset of
 * confusables.txt whose prototypes are ASCII (every look-alike of an ASCII letter, digit or sign),
 * so names written only in scripts whose prototypes are not ASCII are compared as written.
 * Pure: names in, pairs out.
 */
import { ASCII_CONFUSABLES } from './confusables-data.js';

let prototypes: ReadonlyMap<string, string> | undefined;
function table(): ReadonlyMap<string, string> {
  if (!prototypes) {
    const m = new Map<string, string>();
    for (const entry of ASCII_CONFUSABLES.split(';')) {
      const [src, tgt] = entry.split(':') as [string, string];
      m.set(String.fromCodePoint(parseInt(src, 16)), String.fromCodePoint(...tgt.split(' ').map((h) => parseInt(h, 16))));
    }
    prototypes = m;
  }
  return prototypes;
}

/**
 * The prototypes of the look-alikes among ASCII characters themselves (`0` and `O`, `1` and `l`,
 * `m` and `rn`), by character code: an ASCII name (nearly every name) needs neither normalization
 * (NFD leaves ASCII as it is, and the prototypes are ASCII) nor a map lookup per character.
 */
let asciiPrototypes: ReadonlyArray<string | undefined> | undefined;
function asciiTable(): ReadonlyArray<string | undefined> {
  if (!asciiPrototypes) {
    const byCode: Array<string | undefined> = new Array(0x80).fill(undefined);
    for (const [ch, proto] of table()) if (ch.charCodeAt(0) < 0x80) byCode[ch.charCodeAt(0)] = proto;
    asciiPrototypes = byCode;
  }
  return asciiPrototypes;
}

/** The skeleton of an ASCII `s`, or undefined when `s` is not ASCII. */
function asciiSkeleton(s: string): string | undefined {
  const protos = asciiTable();
  let out = '';
  let copied = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return undefined;
    const proto = protos[c];
    if (proto === undefined) continue;
    out += s.slice(copied, i) + proto;
    copied = i + 1;
  }
  return copied === 0 ? s : out + s.slice(copied);
}

/** The UTS #39 skeleton of `s` (over the ASCII-prototype subset). */
export function skeleton(s: string): string {
  const ascii = asciiSkeleton(s);
  if (ascii !== undefined) return ascii;
  const map = table();
  let out = '';
  for (const ch of s.normalize('NFD')) out += map.get(ch) ?? ch;
  return out.normalize('NFD');
}

export interface ConfusablePair<T> {
  first: T;
  second: T;
}

/**
 * The pairs of items whose names are confusable but not the same name (`same` says when two names
 * are one: the platform compares some case-insensitively; duplicates are reported elsewhere).
 * Each item is paired with the first one of its skeleton.
 */
export function confusablePairs<T>(
  items: readonly T[],
  nameOf: (t: T) => unknown,
  caseInsensitive: boolean,
  /** skeleton, or a memo of it (the same variable keys recur in every service). */
  skeletonOf: (s: string) => string = skeleton,
): Array<ConfusablePair<T>> {
  const fold = (s: string) => (caseInsensitive ? s.toLowerCase() : s);
  const firstBySkeleton = new Map<string, { item: T; name: string }>();
  const pairs: Array<ConfusablePair<T>> = [];
  for (const item of items) {
    const name = nameOf(item);
    if (typeof name !== 'string') continue;
    const key = skeletonOf(fold(name));
    const first = firstBySkeleton.get(key);
    if (!first) firstBySkeleton.set(key, { item, name });
    else if (fold(first.name) !== fold(name)) pairs.push({ first: first.item, second: item });
  }
  return pairs;
}
