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
 * The look-alikes among ASCII characters themselves (`0` and `O`, `1` and `l`, `m` and `rn`), as a
 * pattern, and their prototypes: an ASCII name (nearly every name) needs neither normalization
 * (NFD leaves ASCII as it is, and the prototypes are ASCII) nor a lookup per character.
 */
let asciiLookAlikes: { pattern: RegExp; prototypeOf: ReadonlyMap<string, string> } | undefined;
function asciiTable(): NonNullable<typeof asciiLookAlikes> {
  if (!asciiLookAlikes) {
    const prototypeOf = new Map([...table()].filter(([ch]) => ch.charCodeAt(0) < 0x80));
    const escaped = [...prototypeOf.keys()].map((ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    asciiLookAlikes = { pattern: new RegExp(`[${escaped}]`, 'g'), prototypeOf };
  }
  return asciiLookAlikes;
}
const ASCII_ONLY = /^[\x00-\x7f]*$/;

/** The UTS #39 skeleton of `s` (over the ASCII-prototype subset). */
export function skeleton(s: string): string {
  if (ASCII_ONLY.test(s)) {
    const { pattern, prototypeOf } = asciiTable();
    return s.replace(pattern, (ch) => prototypeOf.get(ch)!);
  }
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
export function confusablePairs<T>(items: readonly T[], nameOf: (t: T) => unknown, caseInsensitive: boolean): Array<ConfusablePair<T>> {
  const fold = (s: string) => (caseInsensitive ? s.toLowerCase() : s);
  const firstBySkeleton = new Map<string, { item: T; name: string }>();
  const pairs: Array<ConfusablePair<T>> = [];
  for (const item of items) {
    const name = nameOf(item);
    if (typeof name !== 'string') continue;
    const key = skeleton(fold(name));
    const first = firstBySkeleton.get(key);
    if (!first) firstBySkeleton.set(key, { item, name });
    else if (fold(first.name) !== fold(name)) pairs.push({ first: first.item, second: item });
  }
  return pairs;
}
