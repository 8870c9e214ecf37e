/**
 * Request bodies may hold `SecretValue`s; they are revealed here, at the last moment, and the clear
 * values are remembered so that anything the server echoes back (an error message quoting the
 * rejected value) is scrubbed before it reaches an error or an event.
 */
import { SecretValue, REDACTED } from '../model/secret.js';

export interface SerialisedBody {
  json: string;
  /** Clear secret values found in the body. */
  secrets: string[];
}

export function serialiseBody(body: unknown): SerialisedBody {
  const secrets: string[] = [];
  const reveal = (v: unknown): unknown => {
    if (v instanceof SecretValue) {
      const clear = v.reveal();
      if (clear !== '') secrets.push(clear);
      return clear;
    }
    if (Array.isArray(v)) return v.map(reveal);
    if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = reveal(x);
      return out;
    }
    return v;
  };
  return { json: JSON.stringify(reveal(body)), secrets };
}

/** Replaces every occurrence of each secret (longest first) by the redaction marker. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].filter((x) => x.length > 0).sort((a, b) => b.length - a.length)) {
    out = out.split(s).join(REDACTED);
  }
  return out;
}
