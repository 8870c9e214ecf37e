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
 * `nearest`, for a name that refers to an object: only a candidate that reads as a misspelling of
 * it, never a different object. Names are words joined by `-`, `_`, `.` or `/`: a candidate that
 * replaces a whole word (`checkout-api` -> `checkout-web`: another service, not a typo) is not
 * offered, since following the hint would point the reference at the wrong object (for a removed
 * service, an alert rule watching another one).
 */
export function nearestTypo(word: string, candidates: Iterable<string>): string | undefined {
  const guess = nearest(word, candidates);
  return guess !== undefined && !replacesAWord(word, guess) ? guess : undefined;
}

const words = (s: string) => s.toLowerCase().split(/[-_./]+/).filter((w) => w !== '');

/**
 * Same number of words, and one of them differs from its counterpart by more than a slip of the
 * fingers: more edits than a third of its length (at least one; a swap of two letters is one). Or a
 * different number of words that is more than a separator slipped in or left out (`dockerhub` ->
 * `docker-hub` is a typo; `checkout` -> `checkout-web` or `api` -> `api-v2` adds a word: another
 * object): their letters, separators aside, more than one edit apart.
 */
function replacesAWord(a: string, b: string): boolean {
  const wa = words(a);
  const wb = words(b);
  if (wa.length !== wb.length) return swapDistance(wa.join(''), wb.join('')) > 1;
  if (wa.length < 2) return false;
  return wa.some((w, i) => {
    const v = wb[i]!;
    return w !== v && swapDistance(w, v) > Math.max(1, Math.floor(Math.max(w.length, v.length) / 3));
  });
}

/** Edit distance where swapping two adjacent letters counts as one edit (optimal string alignment). */
function swapDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
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
