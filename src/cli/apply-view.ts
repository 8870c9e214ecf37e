/**
 * How `apply` shows its progress and outcome. Three modes, chosen once:
 *  - `--json`: one JSON object per event and line (Terraform's machine-readable UI shape:
 *    `@level`, `@message`, `@timestamp`, `type`, then the event's own fields);
 *  - a terminal: configuration steps as lines, and below them a live block with one line per
 *    deploying service (state, elapsed time) and a spinner, redrawn in place;
 *  - anything else (CI logs): one line per state change.
 * The line and summary renderers are pure; only `createApplyView` writes.
 */
import type { ApplyEvent, StepAction, StepRef } from '../apply/events.js';
import type { ApplyResult, StepReport } from '../apply/apply.js';
import type { Palette } from '../render/palette.js';
import { escapeControl, escapeJsonText } from '../render/escape.js';

type Verbs = { ing: string; done: string; noun: string };

const VERBS: Record<Exclude<StepAction, 'no-op'>, Verbs> = {
  create: { ing: 'Creating...', done: 'Creation complete', noun: 'Creation' },
  update: { ing: 'Modifying...', done: 'Modifications complete', noun: 'Modification' },
  delete: { ing: 'Destroying...', done: 'Destruction complete', noun: 'Destruction' },
  replace: { ing: 'Replacing...', done: 'Replacement complete', noun: 'Replacement' },
  deploy: { ing: 'Deploying...', done: 'Deployed', noun: 'Deployment' },
  backup: { ing: 'Backing up...', done: 'Backup complete', noun: 'Backup' },
};

/** A `no-op` step only records or clears the protect mark: said as such, never as a modification. */
const MARK_VERBS: Record<'record' | 'clear', Verbs> = {
  record: { ing: 'Recording the protect mark...', done: 'Protect mark recorded', noun: 'Recording the protect mark' },
  clear: { ing: 'Clearing the protect mark...', done: 'Protect mark cleared', noun: 'Clearing the protect mark' },
};

function verbsOf(ref: StepRef): Verbs {
  return ref.action === 'no-op' ? MARK_VERBS[ref.protect_mark === false ? 'clear' : 'record'] : VERBS[ref.action];
}

const esc = escapeControl;

/** One human line for an event (undefined: the event has no line of its own). */
export function renderApplyEventLine(e: ApplyEvent, p: Palette): string | undefined {
  switch (e.type) {
    case 'apply_start':
      return `${p.bold(esc(e.address))}: ${verbsOf(e).ing}`;
    case 'apply_progress':
      return `${p.bold(esc(e.address))}: ${stateColour(e.state, p)} [${e.elapsed_seconds}s elapsed]`;
    case 'apply_complete':
      return `${p.bold(esc(e.address))}: ${p.green(verbsOf(e).done)} after ${e.elapsed_seconds}s${e.id ? ` [id=${esc(e.id)}]` : ''}${e.detail ? ` (${esc(e.detail)})` : ''}`;
    case 'apply_errored': {
      const lines = [`${p.bold(esc(e.address))}: ${p.red(`${verbsOf(e).noun} failed`)} after ${e.elapsed_seconds}s: ${esc(e.error)}`];
      if (e.hint) lines.push(`  ${p.yellow('hint:')} ${esc(e.hint)}`);
      if (e.logs?.length) {
        lines.push(`  last log lines:`);
        for (const l of e.logs) lines.push(`    ${p.dim(esc(l))}`);
      }
      return lines.join('\n');
    }
    case 'deploy_pending':
      // Listed once, at the end (renderApplyOutcome).
      return undefined;
    case 'apply_skipped':
      return `${p.bold(esc(e.address))}: ${p.yellow('Skipped')} (${e.action}): it depends on ${esc(e.because)}, which failed`;
    case 'backup_created':
      return `${p.bold(esc(e.address))}: backup ${p.cyan(`"${esc(e.backup_name)}"`)} taken before it is destroyed [id=${esc(e.backup_id)}]`;
    case 'rate_limited':
      return p.yellow(`API rate limit reached: waiting ${e.wait_seconds}s before the next request`);
    case 'change_summary':
      return undefined;
  }
}

function stateColour(state: string, p: Palette): string {
  if (state === 'DEPLOYED') return p.green(state);
  if (state.endsWith('_ERROR') || state === 'CANCELED') return p.red(state);
  return p.cyan(state);
}

function message(e: ApplyEvent): string {
  if (e.type === 'change_summary') return `Apply: ${e.add} added, ${e.change} changed, ${e.destroy} destroyed, ${e.deploy} deployed, ${e.failed} failed${e.pending_deploy !== undefined ? `, ${e.pending_deploy} not deployed (--no-deploy)` : ''}`;
  if (e.type === 'deploy_pending') return `${e.address}: not deployed (--no-deploy): ${e.reasons.join('; ')}`;
  return (renderApplyEventLine(e, PLAIN) ?? e.type).split('\n')[0]!;
}

const identity = (s: string) => s;
const PLAIN: Palette = { enabled: false, green: identity, red: identity, yellow: identity, cyan: identity, magenta: identity, bold: identity, dim: identity };

/** One JSON line for an event. */
export function renderApplyEventJson(e: ApplyEvent, at: Date): string {
  const level = e.type === 'apply_errored' ? 'error' : e.type === 'apply_skipped' || e.type === 'rate_limited' ? 'warn' : 'info';
  const doc = { '@level': level, '@message': message(e), '@timestamp': at.toISOString(), ...(e.type === 'change_summary' ? { operation: 'apply' } : {}), ...e };
  return escapeJsonText(JSON.stringify(doc)) + '\n';
}

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;

export function summaryLine(result: ApplyResult): string {
  const s = result.summary;
  const pending = result.pending_deploys === undefined ? '' : `, ${result.pending_deploys.length} not deployed (--no-deploy)`;
  return `Resources: ${s.add} added, ${s.change} changed, ${s.destroy} destroyed; ${s.deploy} deployed${pending}.`;
}

/** What `apply --no-deploy` left to deploy, and where it shows next. */
function pendingLines(result: ApplyResult, p: Palette): string[] {
  const list = result.pending_deploys;
  if (list === undefined) return [];
  if (list.length === 0) return ['', 'Nothing to deploy (--no-deploy).'];
  const lines = ['', p.bold(`Not deployed (--no-deploy): ${plural(list.length, 'service')} the plan would have deployed; the next plan shows them as to deploy:`)];
  for (const d of list) lines.push(`  ${p.yellow('~')} ${esc(d.address)}: ${esc(d.reasons.join('; '))}`);
  return lines;
}

function detailOf(r: StepReport): string {
  if (r.status === 'failed') return r.error ?? 'failed';
  if (r.status === 'skipped') return `depends on ${r.because ?? 'a failed step'}`;
  if (r.status === 'not_started') return 'interrupted before it started';
  return r.note ?? '';
}

/** The closing lines: `Apply complete! ...`, or the table of applied / failed / skipped steps. */
export function renderApplyOutcome(result: ApplyResult, p: Palette, opts: { hints?: boolean } = {}): string {
  const lines: string[] = [];
  for (const b of result.backups) lines.push(`Backup of ${esc(b.address)} before its deletion: "${esc(b.name)}" (id ${esc(b.id)}).`);
  if (result.status === 'applied') {
    for (const r of result.steps) if (r.note) lines.push(p.yellow(`Note: ${esc(r.address)}: ${esc(r.note)}.`));
    lines.push(...pendingLines(result, p));
    lines.push('', p.dim(`${plural(result.requestCount, 'API request')} after the plan's reads.`), p.green(p.bold(`Apply complete! ${summaryLine(result)}`)));
    return lines.join('\n') + '\n';
  }
  const rows = result.steps.map((r) => [r.status.replace('_', ' '), r.action, esc(r.address), esc(detailOf(r))]);
  const head = ['STATUS', 'ACTION', 'ADDRESS', 'DETAIL'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (cols: string[]) => '  ' + cols.map((c, i) => (i === cols.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  lines.push('', p.bold(fmt(head)));
  for (const r of rows) {
    const line = fmt(r);
    lines.push(r[0] === 'failed' ? p.red(line) : r[0] === 'applied' ? line : p.yellow(line));
  }
  lines.push(...pendingLines(result, p));
  lines.push('', p.dim(`${plural(result.requestCount, 'API request')} after the plan's reads.`));
  const s = result.summary;
  const counts = `${plural(s.failed, 'step')} failed, ${s.skipped} skipped, ${s.not_started} not started`;
  if (result.status === 'interrupted') {
    lines.push(p.yellow(p.bold(`Apply interrupted: ${counts}. ${summaryLine(result)}`)));
    // A next-step hint: left out in CI (src/cli/ci.ts), where a re-run is the workflow's decision.
    if (opts.hints !== false) lines.push('Run `driftless apply` again to finish: it plans from the live state and creates nothing twice.');
  } else {
    lines.push(p.red(p.bold(`Apply failed: ${counts}. ${summaryLine(result)}`)));
    if (result.stoppedBy) lines.push(`No further step was started: ${esc(result.stoppedBy)}`);
  }
  return lines.join('\n') + '\n';
}

export interface ApplyView {
  onEvent(e: ApplyEvent): void;
  /** Stops the live display (spinner). Idempotent. */
  close(): void;
}

export interface ViewOptions {
  json: boolean;
  palette: Palette;
  /** A terminal: live block with spinner. */
  live: boolean;
  write(s: string): void;
  now?: () => Date;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function createApplyView(o: ViewOptions): ApplyView {
  const now = o.now ?? (() => new Date());
  if (o.json) {
    return { onEvent: (e) => o.write(renderApplyEventJson(e, now())), close() {} };
  }
  if (!o.live) {
    return {
      onEvent: (e) => {
        const line = renderApplyEventLine(e, o.palette);
        if (line !== undefined) o.write(line + '\n');
      },
      close() {},
    };
  }
  // Terminal: deploying services live in a block under the log, redrawn in place.
  const deploying = new Map<string, { state: string; since: number }>();
  let drawn = 0;
  let frame = 0;
  const started = Date.now();
  const erase = () => {
    if (drawn > 0) o.write(`\x1b[${drawn}A\x1b[J`);
    drawn = 0;
  };
  const draw = () => {
    if (deploying.size === 0) return;
    const lines = [...deploying].map(([addr, s]) => `  ${o.palette.cyan(SPINNER[frame % SPINNER.length]!)} ${esc(addr)}  ${stateColour(s.state, o.palette)}  ${Math.round((Date.now() - s.since) / 1000)}s`);
    lines.push(o.palette.dim(`  ${deploying.size} deploying, ${Math.round((Date.now() - started) / 1000)}s elapsed`));
    o.write(lines.join('\n') + '\n');
    drawn = lines.length;
  };
  const timer = setInterval(() => {
    frame++;
    if (deploying.size === 0) return;
    erase();
    draw();
  }, 120);
  timer.unref();
  return {
    onEvent(e) {
      erase();
      if (e.type === 'apply_start' && e.action === 'deploy') deploying.set(e.address, { state: 'QUEUED', since: Date.now() });
      else if (e.type === 'apply_progress') {
        const cur = deploying.get(e.address);
        if (cur) cur.state = e.state;
      } else {
        if ((e.type === 'apply_complete' || e.type === 'apply_errored' || e.type === 'apply_skipped') && e.action === 'deploy') deploying.delete(e.address);
        const line = renderApplyEventLine(e, o.palette);
        if (line !== undefined) o.write(line + '\n');
      }
      draw();
    },
    close() {
      clearInterval(timer);
      erase();
    },
  };
}
