/**
 * runPlanChecks(manifest, live, api): the plan-time checks that need the API's listings, run after
 * the live read and before anything is written (issue 3, "the platform's other capabilities"):
 *
 * - a managed database's instance_type against the managed-database instance-type listing of its
 *   cluster's provider and region (./instance-types.ts);
 * - a terraform service's tf_vars against the variables parsed from its repository
 *   (./terraform-vars.ts).
 *
 * Each distinct listing or repository is asked for once per call (a run), and only when some
 * resource of the manifest needs it; the requests go through `api`, so they count in its
 * requestCount. Diagnostics point at the manifest (file:line:col) and name the allowed values;
 * errors among them fail plan and apply before any write. Never throws for an API failure: a
 * listing that cannot be read is a warning saying what was not checked.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import type { DatabaseSpec, Manifest, TerraformSpec } from '../manifest/types.js';
import { serviceMappings } from '../model/kinds/index.js';
import { addressOf, type LiveState } from '../model/resource.js';
import type { ApiPort } from '../live/api-port.js';
import { checkInstanceTypes, type ManagedDatabaseTarget } from './instance-types.js';
import { checkTerraformVars, type TerraformTarget } from './terraform-vars.js';
import { checkOrganizationReferences, type ReferenceContext } from '../manifest/references.js';

export { checkInstanceTypes, MANAGED_DB_LISTINGS } from './instance-types.js';
export { checkTerraformVars, repositoryKey } from './terraform-vars.js';

export interface CheckTargets {
  databases: ManagedDatabaseTarget[];
  terraforms: TerraformTarget[];
}

/** The resources of the manifest the checks look at. */
export function checkTargets(manifest: Manifest): CheckTargets {
  const out: CheckTargets = { databases: [], terraforms: [] };
  for (const p of manifest.projects ?? []) {
    const pa = addressOf('project', p.name);
    for (const e of p.environments ?? []) {
      const ea = addressOf('environment', e.name, pa);
      for (const s of e.services ?? []) {
        const mappings = serviceMappings(s.type);
        if (mappings.instanceTypeListed && (s as DatabaseSpec).mode === 'MANAGED' && typeof (s as DatabaseSpec).instance_type === 'string') {
          out.databases.push({ address: addressOf(s.type, s.name, ea), spec: s as DatabaseSpec, cluster: e.cluster });
        } else if (mappings.parsesTerraformVariables) {
          out.terraforms.push({ address: addressOf(s.type, s.name, ea), spec: s as TerraformSpec });
        }
      }
    }
  }
  return out;
}

/**
 * Every check of a manifest against the organization, in the order plan reports them: the names
 * of what driftless cannot create and the clusters' maxima (from `references`), then the listings
 * above. The one entry point of `plan`/`apply` (references from their live read) and of
 * `validate --remote` (references from four reads), so the two always agree.
 */
export async function runOrganizationChecks(manifest: Manifest, references: ReferenceContext, live: LiveState, api: ApiPort): Promise<Diagnostic[]> {
  return [...checkOrganizationReferences(manifest, references), ...(await runPlanChecks(manifest, live, api))];
}

export async function runPlanChecks(manifest: Manifest, live: LiveState, api: ApiPort): Promise<Diagnostic[]> {
  const targets = checkTargets(manifest);
  const [instanceTypes, tfVars] = await Promise.all([
    targets.databases.length > 0 ? checkInstanceTypes(targets.databases, live, api) : Promise.resolve([]),
    targets.terraforms.length > 0 ? checkTerraformVars(targets.terraforms, live.organizationId, api) : Promise.resolve([]),
  ]);
  return sortBySource([...instanceTypes, ...tfVars]);
}

/** Source order (file, line, column); stable for diagnostics at one place. */
function sortBySource(diags: Diagnostic[]): Diagnostic[] {
  return diags
    .map((d, i) => ({ d, i }))
    .sort((a, b) => {
      const ra = a.d.range;
      const rb = b.d.range;
      if (!ra || !rb) return ra ? 1 : rb ? -1 : a.i - b.i;
      if (ra.file !== rb.file) return ra.file < rb.file ? -1 : 1;
      return ra.start.line - rb.start.line || ra.start.col - rb.start.col || a.i - b.i;
    })
    .map((x) => x.d);
}
