/**
 * `driftless graph [paths..]`: the plan's dependency graph as Graphviz DOT or Mermaid:
 * environments, their deployment stages in order, services in their stages, database clones, each
 * labelled with its planned action. With `--offline` it draws the manifest alone (no API call, no
 * actions). Exit 0, or 1 on any error.
 */
import type { Argv } from 'yargs';
import type { CliCommand } from '../command.js';
import { EXIT, type CliIO } from '../io.js';
import { hasErrors, type Diagnostic } from '../../diag/diagnostic.js';
import { writeDiagnostics } from '../diagnostics-out.js';
import { renderGraphDot, renderGraphMermaid } from '../../render/graph.js';
import { loadManifest } from '../../manifest/load.js';
import { buildGraph } from '../../graph/build.js';
import type { DesiredGraph } from '../../model/resource.js';
import type { Plan } from '../../plan/types.js';
import { palettesOf } from '../config.js';
import { runPlan } from '../run-plan.js';
import { reportUsage, type ApiUsage } from '../api-usage.js';
import { apiEventReporter, connectionOf, connectionOptions, pathsAndTargets, pathsPositional, targetOption, type ConnectionArgs } from '../shared-options.js';
import { targetGraph } from '../../graph/target.js';

export interface GraphArgs extends ConnectionArgs {
  paths?: string[];
  target?: string[];
  format?: 'dot' | 'mermaid';
  offline?: boolean;
  color?: boolean;
  /** false with `--no-secret-values`. */
  secretValues?: boolean;
}

export const graphCommand: CliCommand<GraphArgs> = {
  command: 'graph [paths..]',
  describe: "Draw the plan's dependency graph (Graphviz DOT or Mermaid)",
  builder: (y: Argv) =>
    targetOption(pathsPositional(connectionOptions(y)))
      .option('format', { choices: ['dot', 'mermaid'] as const, default: 'dot' as const, describe: 'Graphviz DOT, or Mermaid (GitHub renders it in comments)' })
      .option('offline', { type: 'boolean', default: false, describe: 'Draw the manifest only: no API call, no planned actions' })
      // As plan's: `--no-secret-values` reads secretValues=false.
      .option('secret-values', { type: 'boolean', describe: "--no-secret-values: the planned actions without reading any secret value (a secret's change is not shown)" }),
  run: async (args: GraphArgs, io: CliIO): Promise<number> => {
    const errPalette = palettesOf(io, args).err;
    let graph: DesiredGraph | undefined;
    let plan: Plan | undefined;
    let diagnostics: Diagnostic[];
    let usage: ApiUsage | undefined;
    const { paths, targets } = pathsAndTargets(args, io.cwd);
    if (args.offline) {
      // Draws names only: like an offline validate, it runs where secrets are not available.
      const loaded = await loadManifest(paths, { env: io.env, cwd: io.cwd, missingEnv: 'warning' });
      diagnostics = [...loaded.diagnostics];
      if (loaded.manifest && !hasErrors(diagnostics)) {
        // Diagnostics about objects instantiated from a template also point at the template and the override.
        const built = buildGraph(loaded.manifest, { templates: loaded.templates });
        diagnostics.push(...built.diagnostics);
        graph = built.graph;
        if (targets && !hasErrors(diagnostics)) {
          const narrowed = targetGraph(built.graph, targets);
          diagnostics.push(...narrowed.diagnostics);
          graph = narrowed.graph;
        }
      }
    } else {
      const r = await runPlan(paths, { ...connectionOf(args), ...(targets ? { targets } : {}), noSecretValues: args.secretValues === false }, { env: io.env, cwd: io.cwd, onApiEvent: apiEventReporter(io) });
      await r.session?.close();
      usage = r.session?.usage?.();
      diagnostics = r.diagnostics;
      graph = r.graph;
      plan = r.plan;
    }
    writeDiagnostics(io, diagnostics, errPalette);
    try {
      if (!graph || hasErrors(diagnostics) || (!args.offline && !plan)) return EXIT.error;
      io.stdout.write(args.format === 'mermaid' ? renderGraphMermaid(graph, plan) : renderGraphDot(graph, plan));
      return EXIT.ok;
    } finally {
      reportUsage(io, usage && { usage: () => usage! });
    }
  },
};
