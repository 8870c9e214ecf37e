/**
 * `driftless validate --remote`: the manifest checked against the organization with plan's own
 * checks (see src/cli/commands/validate.ts). A module of its own so that an offline validate does
 * not load the API client, the organization checks and plan's session.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { hasErrors } from '../diag/diagnostic.js';
import { loadManifest } from '../manifest/load.js';
import { fetchOrganizationFacts } from '../manifest/remote-names.js';
import { runOrganizationChecks } from '../checks/index.js';
import { resolveApiConfig } from './config.js';
import { openSession } from './run-plan.js';
import { apiDiagnostic } from '../pipeline/api-diagnostic.js';
import type { CliIO } from './io.js';
import type { ApiUsage } from './api-usage.js';

/** What validate --remote is given of its command line (a subset of validate's arguments). */
export interface RemoteValidateArgs {
  paths?: string[];
  apiUrl?: string;
  authScheme?: string;
  /** Seconds (--max-wait). */
  maxWait?: number;
}

/**
 * The manifest loaded as offline, then, when it is valid so far, checked against the organization
 * exactly as plan checks it (runOrganizationChecks), in one API session; an API failure is a
 * diagnostic saying what could not be read.
 */
export async function loadCheckedRemotely(args: RemoteValidateArgs, io: CliIO, onUsage: (u: ApiUsage) => void): Promise<Awaited<ReturnType<typeof loadManifest>>> {
  const cfg = resolveApiConfig({ apiUrl: args.apiUrl, authScheme: args.authScheme, maxWait: args.maxWait }, io.env);
  const loaded = await loadManifest(args.paths ?? [], { env: io.env, cwd: io.cwd, missingEnv: 'error' });
  const withFirst = (first: Diagnostic[], then: Diagnostic[] = []) => ({ ...loaded, diagnostics: [...first, ...loaded.diagnostics, ...then] });
  if (!cfg.config) return withFirst(cfg.diagnostics);
  const session = openSession(cfg.config, { parallelism: 2, timeZone: io.env.TZ });
  try {
    let facts: Awaited<ReturnType<typeof fetchOrganizationFacts>>;
    try {
      facts = await fetchOrganizationFacts(session.port);
    } catch (e) {
      return withFirst([...cfg.diagnostics, apiDiagnostic(e, 'Reading cluster, registry and helm repository names')]);
    }
    if (!loaded.manifest || hasErrors(loaded.diagnostics)) return withFirst(cfg.diagnostics);
    try {
      return withFirst(cfg.diagnostics, await runOrganizationChecks(loaded.manifest, facts.references, facts.clusters, session.port));
    } catch (e) {
      return withFirst([...cfg.diagnostics, apiDiagnostic(e, 'Checking the manifest against the organization')]);
    }
  } finally {
    await session.close();
    const u = session.usage?.();
    if (u) onUsage(u);
  }
}
