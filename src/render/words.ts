/**
 * English for generated messages: the indefinite article of a word and the plural of a count, so
 * that no message reads "a environment" or "1 resources". Pure.
 */

/** Letters whose spoken name starts with a vowel sound (an `HTTP` probe, an `SMTP` host). */
const VOWEL_SOUND_LETTERS = new Set([...'AEFHILMNORSX']);

/**
 * `a` or `an` for `word` as it would be read aloud: a vowel sound takes `an` (an environment, an
 * alert_rule, an EMAIL receiver, an 8-character marker), a consonant sound `a` (a database, a
 * unit, a user, a SLACK receiver). Short all-capital words are read letter by letter (an HTTP
 * probe, a TCP probe).
 */
export function article(word: string): 'a' | 'an' {
  const w = word.trim();
  if (w === '') return 'a';
  if (/^\d/.test(w)) return /^(8|11(\d{3})*(?!\d)|18(\d{3})*(?!\d))/.test(w) ? 'an' : 'a';
  const lead = /^[A-Za-z]+/.exec(w)?.[0] ?? w;
  if (lead.length >= 2 && lead.length <= 4 && lead === lead.toUpperCase() && /[A-Z]/.test(lead)) return VOWEL_SOUND_LETTERS.has(lead[0]!) ? 'an' : 'a';
  const lower = w.toLowerCase();
  // "u" read as "you" (unit, user, usage, uuid), "eu" (europe), "one": a consonant sound.
  if (/^(u[bcdfgklmnprstvz][aeiouy]|uu|eu|one\b|once\b)/.test(lower) && !/^un[bcdfghjklmnpqrstvwxz]/.test(lower)) return 'a';
  // A silent h (an hour, an honest mistake).
  if (/^(hour|honest|honou?r|heir)/.test(lower)) return 'an';
  return /^[aeiou]/.test(lower) ? 'an' : 'a';
}

/** `word` with its article: `an environment`, `a database`. */
export function withArticle(word: string): string {
  return `${article(word)} ${word}`;
}

/** `1 resource`, `2 resources`; `many` for a plural that is not the word with an `s`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
