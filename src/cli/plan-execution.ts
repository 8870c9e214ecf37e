/**
 * How a command carries out a plan it has made: `apply` and `preview up` both go through here, so
 * that they wait for the rate limit, refuse a plan whose first write would wait beyond --max-wait,
 * and run applyPlan with its progress view, the same way.
 *
 * Made before runPlan: its `onRateLimit` is the API event reporter's, and a wait met while the plan
 * is read is a line of its own, one met while the plan runs goes through the progress view.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import type { Palette } from '../render/palette.js';
import type { ApplyAuthority } from '../apply/authority.js';
import type { ApplyEvent } from '../apply/events.js';
import { applyPlan, DEFAULT_TIMEOUT_MS, type ApplyResult } from '../apply/apply.js';
import type { CliIO } from './io.js';
import type { RunPlanResult } from './run-plan.js';
import { createApplyView, renderApplyEventJson, type ApplyView } from './apply-view.js';
import { rateLimitRefusal } from './apply-gates.js';

export interface ProgressOutput {
  /** One JSON event per line (apply --json), else lines for a reader. */
  json: boolean;
  palette: Palette;
  /** A terminal: the live block with a spinner. */
  live: boolean;
  write(s: string): void;
}

export interface ExecutionSettings {
  authority: ApplyAuthority;
  parallelism?: number;
  /** Milliseconds. */
  timeoutMs?: number;
  /** The first deployment poll interval in ms (tests). */
  pollInterval?: number;
  /** `--no-deploy`. */
  noDeploy?: boolean;
  signal: AbortSignal;
  /** Each event of the run, after the progress view has shown it. */
  onEvent?: (e: ApplyEvent) => void;
}

export interface PlanExecution {
  /** A rate-limit wait of `seconds`: through the progress view once it runs, else a line of its own. */
  onRateLimit(seconds: number): void;
  /**
   * The plan's reads may have spent the rate-limit budget: the refusal of a first write that would
   * already wait beyond --max-wait (before asking, before any write), or undefined.
   */
  refusal(r: RunPlanResult): Diagnostic | undefined;
  /** applyPlan on the plan runPlan made, with the progress view. */
  execute(r: RunPlanResult, s: ExecutionSettings): Promise<ApplyResult>;
}

/** `command` names the command in the refusal (`apply refused before its first write: ...`). */
export function planExecution(io: CliIO, out: ProgressOutput, command = 'apply'): PlanExecution {
  let view: ApplyView | undefined;
  return {
    onRateLimit(seconds) {
      const e = { type: 'rate_limited' as const, wait_seconds: seconds };
      if (view) view.onEvent(e);
      else if (out.json) out.write(renderApplyEventJson(e, new Date()));
      else io.stderr.write(`API rate limit: waiting ${seconds}s to stay within the limit\n`);
    },
    refusal: (r) => rateLimitRefusal(r.session?.waitBeyondCap?.(), command),
    async execute(r, s) {
      const v = createApplyView(out);
      view = v;
      try {
        out.write(out.json ? '' : '\n');
        return await applyPlan(
          r.plan!,
          {
            api: r.session!.port,
            live: r.live!,
            desired: r.graph!,
            fingerprintKey: r.fingerprintKey!,
            onEvent: (e) => {
              v.onEvent(e);
              s.onEvent?.(e);
            },
            signal: s.signal,
            confirmDeletes: (r.cachedKeys?.length ?? 0) > 0,
          },
          {
            parallelism: s.parallelism,
            timeoutMs: s.timeoutMs ?? DEFAULT_TIMEOUT_MS,
            ...s.authority,
            ...(s.noDeploy ? { noDeploy: true } : {}),
            ...(s.pollInterval !== undefined ? { pollIntervalMs: s.pollInterval, maxPollIntervalMs: Math.max(s.pollInterval, s.pollInterval * 4) } : {}),
          },
        );
      } finally {
        v.close();
        view = undefined;
      }
    },
  };
}
