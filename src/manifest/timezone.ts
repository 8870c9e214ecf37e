/**
 * Checks a time zone name against the IANA time zone database as this Node.js knows it (ICU):
 * the canonical names of `Intl.supportedValuesOf('timeZone')`, and the aliases Intl accepts
 * (`UTC`, `Etc/UTC`, `Etc/GMT+5`, `US/Eastern`, `Asia/Calcutta`, ...). Names are case-sensitive on
 * the platform (a Kubernetes CronJob's timeZone), so `europe/paris` is refused with the right case.
 * A near miss gets a suggestion (`Europe/Pariss` -> `Europe/Paris`). Pure.
 */
import { nearest } from './suggest.js';

let canonical: ReadonlySet<string> | undefined;
/** The canonical IANA names, read once (about 420 of them). */
function canonicalNames(): ReadonlySet<string> {
  canonical ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC']);
  return canonical;
}

/** The name Intl resolves `name` to, or undefined when it is no time zone. */
function resolveTimeZone(name: string): string | undefined {
  // Offsets (`+01:00`) are not IANA names, though newer Intl versions take them.
  if (!/^[A-Za-z]/.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

export interface TimeZoneProblem {
  summary: string;
  detail: string;
  suggestion?: string;
}

/** Why `name` is not an IANA time zone, or undefined when it is one. */
export function timeZoneProblem(name: string): TimeZoneProblem | undefined {
  const names = canonicalNames();
  if (names.has(name)) return undefined;
  const resolved = resolveTimeZone(name);
  const differsByCase = (n: string | undefined) => n !== undefined && n !== name && n.toLowerCase() === name.toLowerCase();
  const sameButCase = [...names].find(differsByCase) ?? (differsByCase(resolved) ? resolved : undefined);
  if (sameButCase) {
    return { summary: `time zone \`${clip(name)}\` is not written as in the IANA database`, detail: `Time zone names are case-sensitive: write \`${sameButCase}\`.`, suggestion: sameButCase };
  }
  if (resolved !== undefined) return undefined;
  const guess = nearest(name, names);
  return {
    summary: `\`${clip(name)}\` is not an IANA time zone`,
    detail: `${guess ? `Did you mean \`${guess}\`? ` : ''}Write a name of the IANA time zone database, such as \`Europe/Paris\`, \`America/New_York\` or \`Etc/UTC\`.`,
    ...(guess ? { suggestion: guess } : {}),
  };
}

function clip(s: string): string {
  return s.length > 60 ? s.slice(0, 57) + '...' : s;
}
