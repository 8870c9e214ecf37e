/** "Did you mean ...?": the closest candidate to a misspelt word, if one is close enough. */

export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length > 200 || b.length > 200) return Math.max(a.length, b.length);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The candidate nearest to `word` (case-insensitive, ties broken by order), or undefined when even
 * the nearest needs more edits than a third of the word's length (at least 2).
 */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  const w = word.toLowerCase();
  const list = [...candidates];
  // A prefix (PROD -> PRODUCTION) is a better hint than any edit distance.
  const prefixed = w.length >= 3 ? list.filter((c) => c.toLowerCase().startsWith(w)) : [];
  if (prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of list) {
    const d = editDistance(w, c.toLowerCase());
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  const budget = Math.max(2, Math.floor(word.length / 3));
  return bestD <= budget ? best : undefined;
}

/**
 * The names of a "Known: ..." list as shown: each name once (the same key declared at two scopes,
 * the same cluster name read twice), in first-seen order, at most `max` of them then `…`; `none`
 * when there are none. Every list of suggestions goes through here, so that none repeats a name.
 */
export function knownList(names: Iterable<string>, opts: { max?: number; none?: string } = {}): string {
  const max = opts.max ?? 20;
  const unique = uniqueNames(names);
  if (unique.length === 0) return opts.none ?? '(none)';
  return unique.slice(0, max).join(', ') + (unique.length > max ? ', …' : '');
}

/** Each name once, in first-seen order. */
export function uniqueNames(names: Iterable<string>): string[] {
  return [...new Set(names)];
}
