/**
 * A terraform service's `tf_vars` against the variables its repository declares, as parsed by
 * `POST /organization/{id}/parseTerraformVariablesFromGitRepo` (asked once per distinct
 * repository, url + branch + root_path, in a run):
 *
 * - a key the repository does not declare is an error (naming the declared ones, and the nearest);
 * - a variable the repository requires (non-nullable, no default) that tf_vars does not set is an
 *   error, or a warning when the service also reads tf_var_file_paths (a file may set it: driftless
 *   cannot read those files);
 * - a variable the repository marks sensitive that is set without being listed in
 *   sensitive_tf_vars is a warning: it would be stored as a plain variable and shown in plans.
 *
 * A repository the API cannot read is a warning (the variables are then not checked), never a
 * silent pass. Values are never quoted: only keys, which the manifest and the API show anyway.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { routes } from '../api/routes.js';
import { gitProviderOf } from '../apply/body-helpers.js';
import { error, warning } from '../diag/diagnostic.js';
import { nearest } from '../manifest/suggest.js';
import type { TerraformSpec } from '../manifest/types.js';
import { sourceOf } from '../manifest/types.js';
import type { ApiPort } from '../live/api-port.js';
import { OnceCache, resultsOf } from './fetch-once.js';
import { nameList, quote, withoutCredentials } from './text.js';

export interface TerraformTarget {
  address: string;
  spec: TerraformSpec;
}

/** One variable of a repository, as the API reports it. */
export interface TerraformVariable {
  key: string;
  sensitive: boolean;
  nullable: boolean;
  default: string | null;
}

export function parsePath(organizationId: string): string {
  return routes.terraformVariablesParse(organizationId);
}

/** The identity of a repository for the cache: url, branch and root path (`/` when omitted). */
export function repositoryKey(g: { url: string; branch?: string; root_path?: string }): string {
  const root = g.root_path === undefined || g.root_path === '' ? '/' : g.root_path;
  return JSON.stringify([g.url, g.branch ?? '', root]);
}

function variablesOf(body: unknown): TerraformVariable[] {
  return resultsOf(body)
    .filter((v) => typeof v.key === 'string')
    .map((v) => ({
      key: v.key as string,
      sensitive: v.sensitive === true,
      nullable: v.nullable !== false,
      default: v.default === undefined || v.default === null ? null : String(v.default),
    }));
}

function isRequired(v: TerraformVariable): boolean {
  return !v.nullable && v.default === null;
}

export async function checkTerraformVars(
  targets: readonly TerraformTarget[],
  organizationId: string,
  api: ApiPort,
  cache: OnceCache<TerraformVariable[]> = new OnceCache<TerraformVariable[]>(),
): Promise<Diagnostic[]> {
  const results = await Promise.all(
    targets.map(async ({ address, spec }): Promise<Diagnostic[]> => {
      const g = spec.git_repository;
      if (!g || typeof g.url !== 'string') return [];
      const body = {
        git_repository: {
          url: g.url,
          ...(g.branch !== undefined ? { branch: g.branch } : {}),
          ...(g.root_path !== undefined ? { root_path: g.root_path } : {}),
          // The API requires the provider; derived from the URL as a create's body does (gitRequest).
          provider: g.provider ?? gitProviderOf(g.url),
        },
      };
      const got = await cache.get(repositoryKey(g), async () => variablesOf(await api.post(parsePath(organizationId), body)));
      const repo = `${withoutCredentials(g.url)}${g.branch ? ` (branch ${g.branch})` : ''}${g.root_path && g.root_path !== '/' ? ` at ${g.root_path}` : ''}`;
      const what = `terraform ${spec.name}`;
      const serviceRange = sourceOf(spec);
      if (!got.ok) {
        const range = sourceOf(spec, 'git_repository') ?? serviceRange;
        return [
          warning('check.tf-vars-unchecked', `${what}: tf_vars not checked: the API could not read the variables of ${repo}`, {
            detail: withoutCredentials(got.message),
            address,
            ...(range ? { range } : {}),
          }),
        ];
      }
      const declared = got.value;
      const byKey = new Map(declared.map((v) => [v.key, v]));
      const keys = declared.map((v) => v.key);
      const tfVars = spec.tf_vars ?? {};
      const sensitiveListed = new Set(spec.sensitive_tf_vars ?? []);
      const out: Diagnostic[] = [];

      for (const key of Object.keys(tfVars)) {
        const range = sourceOf(tfVars, key) ?? sourceOf(spec, 'tf_vars') ?? serviceRange;
        const v = byKey.get(key);
        if (!v) {
          const hint = nearest(key, keys);
          out.push(
            error('check.tf-var-unknown', `${what}: tf_vars sets ${quote(key)}, which ${repo} does not declare`, {
              detail:
                (keys.length > 0 ? `Declared variables: ${nameList(keys)}.` : 'The repository declares no variables.') +
                (hint ? ` Did you mean ${quote(hint)}?` : ''),
              address,
              ...(range ? { range } : {}),
            }),
          );
          continue;
        }
        if (v.sensitive && !sensitiveListed.has(key)) {
          out.push(
            warning('check.tf-var-sensitive', `${what}: ${quote(key)} is sensitive in ${repo} but not listed in sensitive_tf_vars`, {
              detail: `It would be stored as a plain variable and its value shown in plans. Add it to sensitive_tf_vars and give its value with \${env:NAME} or \${file:PATH}.`,
              address,
              ...(range ? { range } : {}),
            }),
          );
        }
      }

      const missing = declared.filter((v) => isRequired(v) && !Object.prototype.hasOwnProperty.call(tfVars, v.key)).map((v) => v.key);
      if (missing.length > 0) {
        const fromFiles = (spec.tf_var_file_paths ?? []).length > 0;
        const range = sourceOf(spec, 'tf_vars') ?? serviceRange;
        const summary = `${what}: ${repo} requires ${missing.map(quote).join(', ')} (no default, not nullable), which tf_vars does not set`;
        const extra = { address, ...(range ? { range } : {}) };
        out.push(
          fromFiles
            ? warning('check.tf-var-missing', summary, {
                detail: `Unless one of tf_var_file_paths (${spec.tf_var_file_paths!.join(', ')}) sets it, the terraform run will fail. Add it to tf_vars${missing.some((k) => byKey.get(k)?.sensitive) ? ' (sensitive ones with ${env:NAME} and sensitive_tf_vars)' : ''}.`,
                ...extra,
              })
            : error('check.tf-var-missing', summary, {
                detail: `Add ${missing.length === 1 ? 'it' : 'them'} to tf_vars${missing.some((k) => byKey.get(k)?.sensitive) ? ' (sensitive ones with ${env:NAME} and listed in sensitive_tf_vars)' : ''}.`,
                ...extra,
              }),
        );
      }
      return out;
    }),
  );
  return results.flat();
}
