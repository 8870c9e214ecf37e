/**
 * `driftless preview up|down|list|prune PATH...`: preview environments, one per pull request, made
 * from a project's `previews:` declaration (src/manifest/previews.ts).
 *
 *   up     creates or updates the environment of `--number N` and deploys what changed (the plan and
 *          apply pipeline, scoped to that environment), then prints its URLs
 *   down   deletes it and everything in it (its databases only under `allow_data_loss: true`)
 *   list   number, name, age, last deploy, status and URLs of every preview
 *   prune  deletes previews older than the ttl (or `--older-than`), or all but `--keep N,...`
 *
 * Each action lives in its own module, loaded only when it runs. Which options an action takes is
 * checked here, before any request: a usage error runs nothing.
 */
import type { Argv } from 'yargs';
import type { CliCommand } from '../command.js';
import { EXIT, type CliIO } from '../io.js';
import { connectionOptions } from '../shared-options.js';
import { durationOption, integerOption, InvalidOptionValue, parseDuration, shown } from '../option-values.js';
import { parseAssignment, type PreviewAssignment } from '../../manifest/previews.js';
import { PREVIEW_ACTIONS, type PreviewAction, type PreviewArgs } from './preview-args.js';
export { PREVIEW_ACTIONS, type PreviewAction, type PreviewArgs } from './preview-args.js';

/** `--set SERVICE.FIELD=VALUE`, repeatable. */
function readAssignments(raw: unknown): PreviewAssignment[] | InvalidOptionValue {
  const out: PreviewAssignment[] = [];
  for (const w of Array.isArray(raw) ? raw : [raw]) {
    const a = parseAssignment(String(w));
    if (typeof a === 'string') return new InvalidOptionValue(a);
    out.push(a);
  }
  return out;
}

/** `--keep 12,15 18`: pull request numbers; empty (`--keep ""`, no open pull request) keeps none. */
function readNumbers(raw: unknown): number[] | InvalidOptionValue {
  const words = (Array.isArray(raw) ? raw : [raw]).flatMap((w) => String(w).split(/[\s,]+/)).filter((w) => w !== '');
  const out: number[] = [];
  for (const w of words) {
    if (!/^\d{1,9}$/.test(w) || Number(w) < 1) return new InvalidOptionValue(`--keep takes pull request numbers separated by commas (e.g. 12,15), got ${shown(w)}`);
    out.push(Number(w));
  }
  return out;
}

function readAge(raw: unknown): number | InvalidOptionValue {
  const ms = typeof raw === 'string' ? parseDuration(raw, { unit: 'required' }) : undefined;
  if (ms === undefined) return new InvalidOptionValue(`--older-than must be a duration such as 72h, 7d or 90m, got ${shown(raw)}`);
  return ms;
}

export const previewCommand: CliCommand<PreviewArgs> = {
  command: 'preview <action> [paths..]',
  describe: 'Preview environments per pull request: up (create or update, deploy, print the URLs), down, list, prune',
  builder: (y: Argv) =>
    connectionOptions(y)
      .positional('action', { type: 'string', choices: PREVIEW_ACTIONS, describe: 'up, down, list or prune' })
      .positional('paths', { type: 'string', array: true, describe: 'Manifest files or directories (default: the current directory)' })
      .option('project', { type: 'string', describe: 'The project whose previews: declaration to use (up and down; list and prune: only this project)' })
      .option('number', integerOption('number', { min: 1, max: 999_999_999, describe: 'The pull request number (up and down)' }))
      .option('set', { type: 'string', array: true, coerce: readAssignments, describe: 'up: SERVICE.FIELD=VALUE for this preview, e.g. api.git_commit_id=$SHA or api.git_repository.branch=feature-x (repeatable)' })
      .option('format', { choices: ['human', 'json'] as const, describe: 'json prints one JSON document on stdout (up: {environment, created, urls: [{service, url}]}; list: {previews: [...]}; down: {environment, deleted, already_gone}; prune: {deleted, blocked})' })
      .option('older-than', { type: 'string', requiresArg: true, coerce: readAge, describe: "prune: delete previews older than DURATION (default: the declaration's ttl)" })
      .option('keep', { type: 'string', array: true, coerce: readNumbers, describe: 'prune: delete every preview but these pull request numbers, e.g. --keep 12,15 (the open pull requests)' })
      .option('out', { type: 'string', describe: 'up: save the plan to FILE instead of applying it (`driftless apply FILE` applies it exactly)' })
      .option('allow-replace', { type: 'boolean', describe: 'up: allow replacing (delete, then create) the preview environment or a deployed service of it' })
      .option('allow-data-loss', { type: 'boolean', describe: "up: allow deleting or replacing the preview's databases (as the declaration's allow_data_loss: true does)" })
      .option('timeout', durationOption('timeout', { default: '30m', minMs: 1000, maxMs: 24 * 3_600_000, bounds: 'from 1s to 24h', describe: 'How long to wait for deployments and deletions, e.g. 30m' }))
      .option('poll-interval', integerOption('poll-interval', { min: 1, max: 600_000, hidden: true, describe: 'First poll interval in ms (tests)' })),
  run: (args, io) => runPreview(args, io),
};

/** Options each action takes, beyond the connection ones. */
const ACTION_OPTIONS: Record<PreviewAction, ReadonlyArray<keyof PreviewArgs>> = {
  up: ['project', 'number', 'set', 'format', 'out', 'allowReplace', 'allowDataLoss', 'timeout'],
  down: ['project', 'number', 'format', 'timeout'],
  list: ['project', 'format'],
  prune: ['project', 'olderThan', 'keep', 'format', 'timeout'],
};
const FLAG: Partial<Record<keyof PreviewArgs, string>> = { olderThan: '--older-than', keep: '--keep', set: '--set', out: '--out', allowReplace: '--allow-replace', allowDataLoss: '--allow-data-loss', number: '--number', project: '--project', format: '--format' };

export async function runPreview(args: PreviewArgs, io: CliIO): Promise<number> {
  const problems: string[] = [];
  for (const [key, flag] of Object.entries(FLAG) as Array<[keyof PreviewArgs, string]>) {
    if (args[key] !== undefined && !ACTION_OPTIONS[args.action].includes(key)) problems.push(`${flag} is not an option of preview ${args.action} (it takes ${ACTION_OPTIONS[args.action].filter((k) => FLAG[k]).map((k) => FLAG[k]).join(', ')})`);
  }
  if (args.action === 'up' || args.action === 'down') {
    if (args.project === undefined) problems.push(`preview ${args.action} needs --project P (the project whose previews: declaration to use)`);
    if (args.number === undefined) problems.push(`preview ${args.action} needs --number N (the pull request number)`);
  }
  if (problems.length > 0) {
    io.stderr.write(problems.map((p) => `driftless preview: ${p}\n`).join('') + `Run 'driftless preview --help' for the options it takes.\n`);
    return EXIT.error;
  }
  switch (args.action) {
    case 'up':
      return (await import('./preview-up.js')).runPreviewUp(args, io);
    case 'down':
      return (await import('./preview-down.js')).runPreviewDown(args, io);
    case 'list':
      return (await import('./preview-list.js')).runPreviewList(args, io);
    case 'prune':
      return (await import('./preview-down.js')).runPreviewPrune(args, io);
  }
}
