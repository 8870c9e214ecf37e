/**
 * Checks a job's `scheduled_at` the way the platform schedules it: a Kubernetes CronJob, that is a
 * standard five-field cron expression (minute, hour, day of month, month, day of week; lists,
 * ranges, steps, JAN-DEC and SUN-SAT names) or one of the macros @yearly, @annually, @monthly,
 * @weekly, @daily, @midnight, @hourly.
 *
 * The parsing is croner's (a well-kept cron parser): every field against its range. croner also
 * takes Quartz extensions (L, W, #) and 7 for Sunday, which a Kubernetes CronJob refuses; they are
 * refused here too.
 * Pure: the expression in, a problem (what is wrong, what is allowed) or undefined out.
 */
import { CronPattern } from 'croner';

const MACROS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

const FIELDS = [
  { name: 'minute', allowed: '0-59' },
  { name: 'hour', allowed: '0-23' },
  { name: 'day of month', allowed: '1-31' },
  { name: 'month', allowed: '1-12 or JAN-DEC' },
  { name: 'day of week', allowed: '0-6 or SUN-SAT' },
] as const;

export const CRON_SYNTAX = `five fields (minute hour day-of-month month day-of-week, e.g. "0 3 * * 1-5": numbers, *, lists with ",", ranges with "-", steps with "/") or one of ${MACROS.join(', ')}`;

export interface CronProblem {
  summary: string;
  detail: string;
}

function parses(pattern: string): CronPattern | undefined {
  try {
    return new CronPattern(pattern, undefined, { mode: '5-part' });
  } catch {
    return undefined;
  }
}

/** Why `expr` is not a schedule the platform takes, or undefined when it is one. */
export function cronProblem(expr: string): CronProblem | undefined {
  const text = expr.trim();
  if (text.startsWith('@')) {
    if (MACROS.includes(text)) return undefined;
    return { summary: `\`${clip(text)}\` is not a cron macro the platform takes`, detail: `Allowed: ${CRON_SYNTAX}.` };
  }
  const fields = text.split(/\s+/);
  if (fields.length !== FIELDS.length) {
    return { summary: `\`${clip(text)}\` has ${fields.length} field${fields.length === 1 ? '' : 's'}; a cron schedule has 5`, detail: `Allowed: ${CRON_SYNTAX}.` };
  }
  // Each field alone (the others `*`), so the message names the field that is wrong.
  for (let i = 0; i < fields.length; i++) {
    const alone = fields.map((f, j) => (j === i ? f : '*')).join(' ');
    const field = FIELDS[i]!;
    const parsed = parses(alone);
    if (!parsed) {
      return {
        summary: `the ${field.name} field \`${clip(fields[i]!)}\` of \`${clip(text)}\` is not valid`,
        detail: `The ${field.name} takes ${field.allowed}, with lists (,), ranges (a-b, low to high) and steps (/n, n at least 1). A schedule is ${CRON_SYNTAX}.`,
      };
    }
    if (i === 4 && namesDaySeven(fields[i]!)) {
      return {
        summary: `the day of week field \`${clip(fields[i]!)}\` of \`${clip(text)}\` uses 7, which the platform's scheduler (a Kubernetes CronJob) does not take`,
        detail: 'The day of week takes 0-6 or SUN-SAT: write 0 or SUN for Sunday.',
      };
    }
    if (usesQuartzExtension(parsed)) {
      return {
        summary: `the ${field.name} field \`${clip(fields[i]!)}\` of \`${clip(text)}\` uses L, W or #, which the platform's scheduler (a Kubernetes CronJob) does not take`,
        detail: `The ${field.name} takes ${field.allowed}, with lists (,), ranges (-) and steps (/).`,
      };
    }
  }
  if (!parses(text)) return { summary: `\`${clip(text)}\` is not a valid cron schedule`, detail: `Allowed: ${CRON_SYNTAX}.` };
  return undefined;
}

/**
 * croner reads 7 as Sunday, as some crons do; Kubernetes (robfig/cron) takes 0-6 only. The values
 * and range bounds of each list item are looked at, not a step (`*\/7` is a step, not a day).
 */
function namesDaySeven(field: string): boolean {
  return field.split(',').some((item) => item.split('/')[0]!.split('-').some((v) => /^0*7$/.test(v)));
}

/** Last day (L), nearest weekday (W) or nth weekday (#): croner's extensions to standard cron. */
function usesQuartzExtension(p: CronPattern): boolean {
  // croner keeps a weekday as a bit mask of its occurrences in the month: 63 is "every one".
  return p.lastDayOfMonth || p.lastWeekday || p.nearestWeekdays.some((x) => x !== 0) || p.dayOfWeek.some((x) => x !== 0 && x !== 63);
}

function clip(s: string): string {
  return s.length > 60 ? s.slice(0, 57) + '...' : s;
}
