/**
 * `driftless export`: writes a manifest of the live organization (or one project / environment)
 * as YAML, the adoption path for teams that built everything by hand. Secrets cannot be read back:
 * they are written as `${env:NAME}` placeholders and the names to set are listed on stderr (never a
 * value). Exit 0, or 1 on any error.
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Argv } from 'yargs';
import type { CliCommand } from '../command.js';
import { EXIT, type CliIO } from '../io.js';
import { error, type Diagnostic } from '../../diag/diagnostic.js';
import { writeDiagnostics } from '../diagnostics-out.js';
import { palettesOf, resolveApiConfig } from '../config.js';
import { openSession } from '../run-plan.js';
import { apiDiagnostic } from '../../pipeline/api-diagnostic.js';
import { reportUsage } from '../api-usage.js';
import { cacheSettingsOf, readThroughCache } from '../live-cache.js';
import type { RecordsReader } from '../../live/refresh.js';
import { apiEventReporter, connectionOptions, type ConnectionArgs } from '../shared-options.js';
import { exportOrganization, ExportScopeError } from '../../export/export.js';
import { manifestSchemaPathFrom, renderExport, type ExportLayout } from '../../export/yaml.js';
import { choiceOption } from '../option-values.js';

const EXPORT_LAYOUTS: readonly ExportLayout[] = ['file', 'directory'];
import { environmentNames, factorManifest } from '../../export/factor.js';
import { knownList } from '../../manifest/suggest.js';
import type { SecretPlaceholder } from '../../export/placeholders.js';

export interface ExportArgs extends ConnectionArgs {
  organization?: string;
  project?: string;
  environment?: string;
  out?: string;
  layout?: ExportLayout;
  overwrite?: boolean;
  factor?: boolean;
  base?: string;
  color?: boolean;
}

export const exportCommand: CliCommand<ExportArgs> = {
  command: 'export',
  describe: 'Write a manifest of what runs live (secrets as ${env:...} placeholders)',
  builder: (y: Argv) =>
    connectionOptions(y)
      .option('organization', { type: 'string', describe: "Fail unless the token's organization has this name" })
      .option('project', { type: 'string', describe: 'Export only this project' })
      .option('environment', { type: 'string', describe: 'Export only environments of this name' })
      .option('out', { type: 'string', describe: 'Write to FILE (layout file) or into DIR (layout directory); default: stdout' })
      .option('layout', choiceOption('layout', { allowed: EXPORT_LAYOUTS, describe: 'One file, or a directory: organization.yaml, one file per project and one per environment (default: directory when --out is a directory)' }))
      .option('overwrite', { type: 'boolean', describe: 'Replace the manifest files --out already holds (refused otherwise, so that no edit is lost)' })
      .option('factor', { type: 'boolean', default: false, describe: 'Write the services environments of a project share once, as an environment template, and per environment only what differs' })
      .option('base', { type: 'string', requiresArg: true, describe: 'With --factor: the environment the template is built from (default: the one sharing the most services)' }),
  run: async (args: ExportArgs, io: CliIO): Promise<number> => {
    const errPalette = palettesOf(io, args).err;
    const fail = (diags: Diagnostic[]): number => {
      writeDiagnostics(io, diags, errPalette);
      return EXIT.error;
    };
    if (args.base !== undefined && !args.factor) {
      return fail([error('export.base-without-factor', '--base needs --factor', { detail: '--base ENV names the environment an environment template is built from; add --factor to write one.' })]);
    }
    const layout = chooseLayout(args, io.cwd);
    if (layout === 'directory' && args.out === undefined) {
      return fail([error('export.out-required', '--layout directory needs --out DIR', { detail: 'Give the directory to write organization.yaml and the project files into, or use --layout file to print one file.' })]);
    }
    const existing = args.out === undefined ? [] : existingManifestFiles(layout, path.resolve(io.cwd, args.out));
    if (existing.length > 0 && !args.overwrite) {
      return fail([
        error('export.would-overwrite', `${args.out} already holds ${layout === 'file' ? 'a file' : `a manifest (${listed(existing)})`}; nothing was written`, {
          detail:
            layout === 'file'
              ? 'Give --overwrite to replace it (commit it first: edits made since the last export are lost), or another --out.'
              : 'Give --overwrite to replace the files this export writes (commit them first: edits made since the last export are lost; the other files are listed, never deleted), or an empty or new directory.',
        }),
      ]);
    }
    const cfg = resolveApiConfig({ apiUrl: args.apiUrl, authScheme: args.authScheme, maxWait: args.maxWait }, io.env);
    if (!cfg.config) return fail(cfg.diagnostics);
    const session = openSession(cfg.config, { parallelism: args.parallelism, onApiEvent: apiEventReporter(io), timeZone: io.env.TZ });
    try {
      let result;
      try {
        const cache = cacheSettingsOf(args, io.env, io.cwd, cfg.config.baseUrl);
        const through = cache
          ? async (read: RecordsReader) => {
              // An export has no manifest: its full-read line says what needs the lists.
              const r = await readThroughCache(session.port, read, cache, { neededBy: 'the export' });
              session.refresh = r.report;
              writeDiagnostics(io, r.diagnostics, errPalette);
              return r.records;
            }
          : undefined;
        result = await exportOrganization(session.port, { project: args.project, environment: args.environment }, through);
      } catch (e) {
        if (e instanceof ExportScopeError) return fail([error('export.scope-not-found', e.message)]);
        return fail([apiDiagnostic(e, 'Reading the live organization')]);
      }
      // The summary counts what was exported, not how it is written: a factored environment lists
      // only its own services, the template's are still its services.
      const exported = result.manifest;
      // Opt-in: a factored export plans exactly as the plain one, but reads as a design (see docs/export.md).
      if (args.factor) {
        const names = environmentNames(result.manifest);
        if (args.base !== undefined && !names.some((n) => n.toLowerCase() === args.base!.toLowerCase())) {
          return fail([
            error('export.base-not-found', `--base ${args.base}: no exported project has an environment of that name; nothing was written`, {
              detail: `Exported environments: ${knownList(names, { none: 'none' })}.`,
            }),
          ]);
        }
        result = { ...result, manifest: factorManifest(result.manifest, { base: args.base }) };
      }
      if (args.organization !== undefined && args.organization.toLowerCase() !== result.organizationName.toLowerCase()) {
        return fail([
          error('export.organization-mismatch', `the API token belongs to organization "${result.organizationName}", not "${args.organization}"`, {
            detail: 'Use a token of the organization to export (DRIFTLESS_API_TOKEN), or drop --organization.',
          }),
        ]);
      }
      const header = [
        `driftless manifest exported from organization "${result.organizationName}"${scopeText(args)}.`,
        'Review it, commit it, and run `driftless plan` against it: it shows no changes. Secrets driftless did not',
        'write itself cannot be known: they carry `ignore_changes`, so no apply overwrites them (remove it to take one over).',
        'To adopt what runs without redeploying it: `driftless apply --no-deploy`.',
        result.manifest.scope === 'declared'
          ? '`scope: declared`: plan and drift leave the projects and organization-level objects it does not declare alone.'
          : '`scope: organization`: plan and drift report every project or organization-level object it does not declare.',
      ].join('\n');
      // The modeline points at this installation's schema, relative to where the files go (the
      // working directory for stdout, where `> file.yaml` usually puts them).
      const target = args.out === undefined ? io.cwd : path.resolve(io.cwd, args.out);
      const files = renderExport(result, layout, header, manifestSchemaPathFrom(layout === 'file' && args.out !== undefined ? path.dirname(target) : target));
      try {
        writeOutput(files, layout, args.out, io);
      } catch (e) {
        return fail([error('export.write-failed', `cannot write ${args.out}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { detail: 'Check that the path exists and is writable.' })]);
      }
      for (const w of result.warnings) io.stderr.write(`warning: ${w}\n`);
      io.stderr.write(summary(exported, result.requestCount, args.out, files.length));
      io.stderr.write(secretsText(result.secrets));
      return EXIT.ok;
    } finally {
      await session.close();
      reportUsage(io, session);
    }
  },
};

function chooseLayout(args: ExportArgs, cwd: string): ExportLayout {
  if (args.layout) return args.layout;
  if (args.out === undefined) return 'file';
  if (args.out.endsWith('/')) return 'directory';
  try {
    return statSync(path.resolve(cwd, args.out)).isDirectory() ? 'directory' : 'file';
  } catch {
    return /\.ya?ml$/i.test(args.out) ? 'file' : 'directory';
  }
}

/**
 * What an export to `target` would replace or leave beside its own files: the file (layout file),
 * or every manifest file of the directory (a file it does not write would still be merged with
 * the export by the loader).
 */
function existingManifestFiles(layout: ExportLayout, target: string): string[] {
  if (layout === 'file') return existsSync(target) ? [path.basename(target)] : [];
  try {
    return readdirSync(target).filter((n) => /\.ya?ml$/i.test(n)).sort();
  } catch {
    return [];
  }
}

function listed(names: readonly string[]): string {
  return names.length > 5 ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more` : names.join(', ');
}

function writeOutput(files: ReturnType<typeof renderExport>, layout: ExportLayout, out: string | undefined, io: CliIO): void {
  if (out === undefined) {
    io.stdout.write(files[0]!.text);
    return;
  }
  const target = path.resolve(io.cwd, out);
  if (layout === 'file') {
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, files[0]!.text);
    return;
  }
  mkdirSync(target, { recursive: true });
  for (const f of files) writeFileSync(path.join(target, f.name), f.text);
  // The loader merges every *.yaml of a directory: a file left from an earlier export (a project
  // since deleted or renamed) would declare it again.
  const written = new Set(files.map((f) => f.name));
  const others = readdirSync(target).filter((n) => /\.ya?ml$/i.test(n) && !written.has(n));
  if (others.length > 0) io.stderr.write(`warning: ${out} also holds ${others.join(', ')}, not written by this export; driftless reads every *.yaml there, so remove what no longer exists.\n`);
}

function scopeText(args: ExportArgs): string {
  const parts: string[] = [];
  if (args.project !== undefined) parts.push(`project "${args.project}"`);
  if (args.environment !== undefined) parts.push(`environment "${args.environment}"`);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

function summary(m: Record<string, unknown>, requests: number, out: string | undefined, fileCount: number): string {
  const projects = (m.projects as Array<Record<string, unknown>> | undefined) ?? [];
  const envs = projects.flatMap((p) => (p.environments as Array<Record<string, unknown>> | undefined) ?? []);
  const services = envs.flatMap((e) => (e.services as unknown[] | undefined) ?? []);
  const n = (k: number, w: string) => `${k} ${w}${k === 1 ? '' : 's'}`;
  const where = out === undefined ? '' : ` to ${out}${fileCount > 1 ? ` (${n(fileCount, 'file')})` : ''}`;
  return `Exported ${n(projects.length, 'project')}, ${n(envs.length, 'environment')}, ${n(services.length, 'service')}${where} in ${n(requests, 'API request')}.\n`;
}

/**
 * The variables to set, with what each one is for; never a value (none is known). Those of secrets
 * driftless wrote (their fingerprint is known) are needed by plan; the others are under
 * `ignore_changes` and needed only to create their object again.
 */
export function secretsText(secrets: readonly SecretPlaceholder[]): string {
  if (secrets.length === 0) return '';
  const width = Math.max(...secrets.map((s) => s.env.length));
  const line = (s: SecretPlaceholder) => `  ${s.env.padEnd(width)}  ${s.address} ${s.field}`;
  const known = secrets.filter((s) => s.fingerprinted);
  const unknown = secrets.filter((s) => !s.fingerprinted);
  let out = '\nThe API never returns secret values.';
  if (known.length > 0) out += ` Set ${known.length === 1 ? 'this environment variable' : `these ${known.length} environment variables`} before \`driftless plan\`:\n${known.map(line).join('\n')}\n`;
  else out += '\n';
  if (unknown.length > 0) {
    out +=
      (unknown.length === 1
        ? 'This secret was not written by driftless, so its value cannot be known: it is under ignore_changes ' +
          '(never compared nor overwritten), and its variable is needed only to create the object again (or once you remove ignore_changes to take the secret over):'
        : `These ${unknown.length} secrets were not written by driftless, so their values cannot be known: they are under ignore_changes ` +
          '(never compared nor overwritten), and their variables are needed only to create the object again (or once you remove ignore_changes to take the secret over):') +
      `\n${unknown.map(line).join('\n')}\n`;
  }
  return out;
}

