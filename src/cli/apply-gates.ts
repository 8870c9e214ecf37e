/**
 * The gates between a plan and its first write, in the order apply passes them: the rate-limit
 * budget (a first write that would already wait beyond --max-wait is refused now, not in the
 * middle), then the user's approval (a terminal's `yes`, or --auto-approve, or a saved plan).
 */
import { createInterface } from 'node:readline';
import type { Diagnostic } from '../diag/diagnostic.js';
import type { Palette } from '../render/palette.js';
import type { RateLimitWaitError } from '../api/index.js';
import type { CliIO } from './io.js';

/**
 * The plan's reads may have spent the rate-limit budget: when the first write would already wait
 * longer than --max-wait, refuse before asking and before any write. (A wait met later stops the
 * apply between steps: see applyPlan.) `command` is the one refusing: apply, or preview up.
 */
export function rateLimitRefusal(capped: RateLimitWaitError | undefined, command = 'apply'): Diagnostic | undefined {
  if (!capped) return undefined;
  return {
    severity: 'error',
    code: 'apply.rate-limit-wait',
    summary: `${command} refused before its first write: ${capped.message}`,
    detail: `Nothing was changed. Run ${command} again after the reset, or allow a longer wait with --max-wait (or DRIFTLESS_MAX_WAIT).`,
  };
}

export type Approval = { approved: true } | { approved: false; refused: Diagnostic } | { approved: false; cancelled: true };

/**
 * Whether the user approves: a saved plan was reviewed when it was made and --auto-approve says
 * yes; otherwise only `yes` typed on a terminal does (never with --json, whose stdout is events).
 */
export async function approval(io: CliIO, opts: { json: boolean; autoApprove: boolean; savedPlan: boolean; palette: Palette }): Promise<Approval> {
  if (opts.savedPlan || opts.autoApprove) return { approved: true };
  const tty = io.stdin?.isTTY === true && io.stdout.isTTY === true;
  if (!tty || opts.json) {
    return {
      approved: false,
      refused: {
        severity: 'error',
        code: 'apply.needs-approval',
        summary: 'apply needs confirmation, and there is no terminal to ask on.',
        detail: 'Run it with --auto-approve (in CI), or save a plan with `driftless plan --out FILE`, review it, and run `driftless apply FILE`.',
      },
    };
  }
  const ok = await askYes(io, `\n${opts.palette.bold('Do you want to perform these actions?')}\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: `);
  return ok ? { approved: true } : { approved: false, cancelled: true };
}

async function askYes(io: CliIO, question: string): Promise<boolean> {
  if (!io.stdin) return false;
  const rl = createInterface({ input: io.stdin, terminal: false });
  io.stdout.write(question);
  try {
    const answer = await new Promise<string>((res) => {
      rl.once('line', res);
      rl.once('close', () => res(''));
    });
    return answer.trim() === 'yes';
  } finally {
    rl.close();
  }
}
