/** The `terraform` kind (src/model/kinds/descriptor.ts). */
import { git, pinOnly, renamed, same, serviceCommon } from '../ignore-table.js';
import type { KindDescriptor } from './descriptor.js';

/**
 * The resources of the job that runs Terraform when the manifest leaves `job_resources` (or a field
 * of it) out: what the schema documents, what a create sends. 1000 millicores, 1024 MiB and 20 GiB
 * are the platform's own defaults (the Terraform provider's terraformservice.DefaultCPU, DefaultRAM
 * and DefaultStorage); the API document requires the object without giving defaults. A create used
 * to send 500 / 512 / 1 while the schema (and so the editor's hover) said 1000 / 1024 / 20.
 */
const JOB_RESOURCES = { cpu_milli: 1000, ram_mib: 1024, storage_gib: 20 } as const;

export const terraformKind: KindDescriptor<'terraform'> = {
  kind: 'terraform',
  apiType: 'TERRAFORM',
  auditTarget: { type: 'TERRAFORM' },
  variableScope: 'TERRAFORM',
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
    job_resources: JOB_RESOURCES,
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
};
