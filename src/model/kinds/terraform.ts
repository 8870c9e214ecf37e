/** The `terraform` kind (src/model/kinds/descriptor.ts). */
import { git, pinOnly, renamed, same, serviceCommon } from '../ignore-table.js';
import type { ServiceKindDescriptor } from './descriptor.js';
import { error as codeError } from '../../manifest/codes.js';
import { fieldSourceOf } from '../../manifest/source-map.js';
import { error } from '../../diag/diagnostic.js';
import { sourceOf, type TerraformSpec } from '../../manifest/types.js';
import { addressOf, type Address, type LiveResource } from '../resource.js';
import { git as gitAttrs, secretTfVarFields, type ServiceBuild } from '../../graph/service-helpers.js';
import { checkDescription, secret, type GraphBuilder } from '../../graph/builder.js';
import { compact, num, put } from '../../graph/attrs.js';
import { args, byKey, deployedCommit, gitRepo, serviceFromRecord, type ApiRecord } from '../../live/record-helpers.js';
import { EnvRef, gitRepository, obj, type ExportContext } from '../../export/manifest-helpers.js';
import { withoutKindDefaults } from '../../export/part-defaults.js';
import { gitRequest, isObj } from '../../apply/body-helpers.js';

type Doc = Record<string, unknown>;

/**
 * The resources of the job that runs Terraform when the manifest leaves `job_resources` (or a field
 * of it) out: what the schema documents, what a create sends. 1000 millicores, 1024 MiB and 20 GiB
 * are the platform's own defaults (the Terraform provider's terraformservice.DefaultCPU, DefaultRAM
 * and DefaultStorage); the API document requires the object without giving defaults. A create used
 * to send 500 / 512 / 1 while the schema (and so the editor's hover) said 1000 / 1024 / 20.
 */
const JOB_RESOURCES = { cpu_milli: 1000, ram_mib: 1024, storage_gib: 20 } as const;

export const terraformKind: ServiceKindDescriptor<'terraform'> = {
  kind: 'terraform',
  fromRecord: (r, lookup) => serviceFromRecord(r, lookup, terraformKind.service.fromRecord),
  apiType: 'TERRAFORM',
  holdsVariables: true,
  caseInsensitiveName: true,
  parent: 'environment',
  requestFields: [
    'name', 'description', 'auto_deploy_config', 'terraform_files_source', 'terraform_variables_source', 'backend', 'engine',
    'provider_version', 'job_resources', 'timeout_sec', 'use_cluster_credentials', 'action_extra_arguments',
    'dockerfile_fragment', 'icon_uri',
  ],
  createDefaults: {
    description: '',
    auto_deploy_config: { auto_deploy: false, terraform_action: 'DEFAULT' },
    terraform_variables_source: { tf_var_file_paths: [], tf_vars: [] },
    backend: { kubernetes: {} },
    engine: 'TERRAFORM',
    provider_version: { read_from_terraform_block: true, explicit_version: '' },
    // gpu: the API document requires it in the request (no GPU for the Terraform job); the
    // manifest does not offer it.
    job_resources: { ...JOB_RESOURCES, gpu: 0 },
  },
  manifestDefaults: { engine: 'TERRAFORM', timeout_sec: 1800, terraform_action: 'DEFAULT', job_resources: JOB_RESOURCES },
  exportWritesDefaults: true,
  ignorePaths: {
    ...serviceCommon,
    ...git('git_repository', 'terraform_files_source.git_repository'),
    ...same('engine', 'provider_version', 'timeout_sec', 'job_resources', 'job_resources.cpu_milli', 'job_resources.ram_mib', 'job_resources.storage_gib'),
    ...renamed('tf_var_file_paths', 'terraform_variables_source.tf_var_file_paths'),
    ...renamed('tf_vars', 'terraform_variables_source.tf_vars'),
    ...renamed('auto_deploy', 'auto_deploy_config.auto_deploy'),
    ...renamed('terraform_action', 'auto_deploy_config.terraform_action'),
    ...pinOnly('git_commit_id'),
  },
  service: {
    deleteIds: 'terraform_ids',
    parsesTerraformVariables: true,
    checkShape(s, c) {
      (s.sensitive_tf_vars ?? []).forEach((name, i) => {
        if (!s.tf_vars || !Object.prototype.hasOwnProperty.call(s.tf_vars, name)) {
          c.report(codeError('ref.unresolved', `sensitive tf_var \`${name}\` of ${c.what} is not in \`tf_vars\``, { range: fieldSourceOf(s.sensitive_tf_vars, String(i)), address: c.address }));
        }
      });
    },
    limited: (s) => [
      { holder: s.job_resources, field: 'cpu_milli', label: 'job_resources.cpu_milli', value: s.job_resources?.cpu_milli, resource: 'cpu' },
      { holder: s.job_resources, field: 'ram_mib', label: 'job_resources.ram_mib', value: s.job_resources?.ram_mib, resource: 'memory' },
    ],
    secretMaps: (s) => (s.tf_vars ? [{ holder: s.tf_vars as Record<string, unknown>, fields: s.sensitive_tf_vars ?? [], ignorePath: 'tf_vars' }] : []),
    fromManifest: (s, out, env, b) => terraformFromManifest(s, env, b, out),
    fromRecord(r, a) {
      let deployed: LiveResource['deployed'];
      const files = r.terraform_files_source ?? {};
      a.terraform_files_source = { git_repository: gitRepo(files.git_repository) ?? {} };
      deployed = deployedCommit(files.git_repository);
      if (r.engine) a.engine = r.engine;
      if (r.provider_version) a.provider_version = compact({ explicit_version: r.provider_version.explicit_version, read_from_terraform_block: r.provider_version.read_from_terraform_block });
      const vs = r.terraform_variables_source;
      if (vs) {
        a.terraform_variables_source = compact({
          tf_var_file_paths: args(vs.tf_var_file_paths),
          tf_vars: Array.isArray(vs.tf_vars)
            ? vs.tf_vars
                .map((t: ApiRecord) => (t.secret === true ? { key: String(t.key), secret: true } : { key: String(t.key), value: t.value === null ? null : String(t.value), secret: false }))
                .sort(byKey)
            : undefined,
        });
      }
      if (r.timeout_sec !== undefined) a.timeout_sec = num(r.timeout_sec);
      if (r.job_resources) a.job_resources = compact({ cpu_milli: num(r.job_resources.cpu_milli), ram_mib: num(r.job_resources.ram_mib), storage_gib: num(r.job_resources.storage_gib) });
      if (r.auto_deploy_config) a.auto_deploy_config = compact({ auto_deploy: r.auto_deploy_config.auto_deploy, terraform_action: r.auto_deploy_config.terraform_action });
      return deployed;
    },
    toRequest(a) {
      if (isObj(a.terraform_files_source)) a.terraform_files_source = { ...a.terraform_files_source, git_repository: gitRequest(a.terraform_files_source.git_repository) };
    },
    recordToRequest(out) {
      if (isObj(out.terraform_files_source) && isObj(out.terraform_files_source.git_repository)) {
        out.terraform_files_source = { ...out.terraform_files_source, git_repository: gitRequest(out.terraform_files_source.git_repository) };
      }
    },
    toManifest: (a, s, ctx, path) => terraformToManifest(a, s, ctx, path),
    unmanagedFields(r) {
      const out: string[] = [];
      if ((obj(r.backend).user_provided ?? null) !== null) out.push('backend (user_provided)');
      if (r.use_cluster_credentials === true) out.push('use_cluster_credentials');
      if (obj(r.provider_version).read_from_terraform_block === true) out.push('provider_version (read from the terraform block)');
      return out;
    },
    deploy: {
      list: 'terraforms',
      item: (s) => compact({ id: s.id, git_commit_id: s.git_commit_id }),
      bodyFields: ['git_commit_id', 'action'],
      idInBody: true,
    },
  },
};

function terraformFromManifest(s: TerraformSpec, env: Address, b: GraphBuilder, out: ServiceBuild): void {
  const a = out.attrs;
  a.terraform_files_source = { git_repository: gitAttrs(s.git_repository) };
  put(a, 'engine', s.engine);
  if (s.provider_version !== undefined) a.provider_version = { explicit_version: String(s.provider_version), read_from_terraform_block: false };
  const sensitiveNames = new Set(s.sensitive_tf_vars ?? []);
  if (s.tf_vars !== undefined || s.tf_var_file_paths !== undefined) {
    const vs: Record<string, unknown> = {};
    if (s.tf_var_file_paths) vs.tf_var_file_paths = [...s.tf_var_file_paths];
    if (s.tf_vars) {
      vs.tf_vars = Object.keys(s.tf_vars)
        .sort()
        .map((key) => {
          const v = s.tf_vars![key]!;
          const isSecret = sensitiveNames.has(key) || typeof v !== 'string';
          return { key, value: isSecret ? secret(v) : v, secret: isSecret };
        });
      if ((vs.tf_vars as Array<{ secret: boolean }>).some((t) => t.secret)) out.sensitiveFields.push('terraform_variables_source');
    }
    a.terraform_variables_source = vs;
  }
  put(a, 'timeout_sec', num(s.timeout_sec));
  if (s.job_resources) a.job_resources = compact({ ...s.job_resources });
  if (s.auto_deploy !== undefined || s.terraform_action !== undefined)
    a.auto_deploy_config = compact({ auto_deploy: s.auto_deploy, terraform_action: s.terraform_action });
  if (s.git_commit_id !== undefined) out.deploy = { git_commit_id: s.git_commit_id };
  const address = addressOf('terraform', s.name, env);
  if (s.description !== undefined) checkDescription(b, s.description, out.sensitiveFields.length ? secretTfVarFields(a) : [], address, () => sourceOf(s, 'description'));
  for (const name of sensitiveNames)
    if (!s.tf_vars || !(name in s.tf_vars))
      b.diagnostics.push(
        error('ref.unresolved', `terraform ${s.name}: sensitive_tf_vars names "${name}", which is not in tf_vars`, {
          address,
          range: sourceOf(s, 'sensitive_tf_vars'),
        }),
      );
}


function terraformToManifest(a: Doc, s: LiveResource, ctx: ExportContext, path: string[]): Doc {
  const body: Doc = { git_repository: gitRepository(obj(a.terraform_files_source).git_repository) };
  Object.assign(body, withoutKindDefaults(terraformKind, { engine: a.engine }));
  const pv = obj(a.provider_version);
  // A version read from the terraform block is not something the manifest can set.
  if (pv.read_from_terraform_block !== true && typeof pv.explicit_version === 'string') body.provider_version = pv.explicit_version;
  const vs = obj(a.terraform_variables_source);
  body.tf_var_file_paths = vs.tf_var_file_paths;
  const tfVars: Record<string, unknown> = {};
  const sensitive: string[] = [];
  for (const t of (vs.tf_vars as Array<{ key: string; value?: string | null; secret?: boolean }> | undefined) ?? []) {
    if (t.secret === true) {
      sensitive.push(t.key);
      tfVars[t.key] = new EnvRef(ctx.secrets.allocate([...path, 'TF', t.key], { address: s.address, field: `tf_vars.${t.key}`, fingerprinted: s.fingerprints?.[`tf_vars.${t.key}`] !== undefined }));
    } else {
      tfVars[t.key] = t.value ?? '';
    }
  }
  if (Object.keys(tfVars).length > 0) body.tf_vars = tfVars;
  if (sensitive.length > 0) body.sensitive_tf_vars = sensitive;
  // tf_vars is one field for ignore_changes: a secret of it that cannot be known leaves the whole map alone.
  if (sensitive.some((k) => s.fingerprints?.[`tf_vars.${k}`] === undefined)) body.ignore_changes = ['tf_vars'];
  Object.assign(body, withoutKindDefaults(terraformKind, { timeout_sec: a.timeout_sec }));
  const jr = obj(a.job_resources);
  const resources = withoutKindDefaults(terraformKind, { cpu_milli: jr.cpu_milli, ram_mib: jr.ram_mib, storage_gib: jr.storage_gib }, 'job_resources');
  if (Object.keys(resources).length > 0) body.job_resources = resources;
  const adc = obj(a.auto_deploy_config);
  body.auto_deploy = adc.auto_deploy;
  Object.assign(body, withoutKindDefaults(terraformKind, { terraform_action: adc.terraform_action }));
  body.git_commit_id = s.deployed?.git_commit_id;
  return body;
}
