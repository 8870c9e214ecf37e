/**
 * The six service kinds (api-notes 4): how each builds its record from a create or PUT body, and
 * how a stored record is presented. PUT semantics follow the real service: container, job, helm
 * and terraform PUT take the create body and replace the record (omitted fields take their
 * defaults); application PUT is the same but `name` and `git_repository` may be omitted (kept);
 * database PUT is partial and refuses a change of `type` or `mode`.
 */
import type { EmulatorContext } from '../context.js';
import { badRequest, invalidField, notFound } from '../errors.js';
import type { ApiRecord } from '../state.js';
import { AWS_MANAGED_DB_INSTANCE_TYPES, awsManagedDbInstanceTypes } from '../data/instance-types.js';
import { terraformSubAction } from '../ops/timeline.js';
import { buildHelmSource, presentHelmSource } from './helm-source.js';
import { type Body, type Fields, NO_HEALTHCHECKS, checkRegistry, checkResources, clusterOf, computeCommon, gitRepository, groupRefs, limits } from './fields.js';

export type ServiceKindName = 'application' | 'container' | 'database' | 'job' | 'helm' | 'terraform';

/** What one deploy of a service installs, from its deploy request (the operation's ServiceRequest). */
export interface DeployVersion {
  version: { git_commit_id?: string; image_tag?: string; chart_version?: string };
  sub_action?: string;
}

/**
 * Everything the emulator knows of one service kind: every per-kind table of the emulator (its
 * routes, the environment's batch bodies, variable scopes, audit and alert targets, links) is
 * derived from KINDS, so a new kind is one entry here (docs/adding-a-kind.md, step 6).
 */
export interface KindDef {
  /** Its path segment (`/helm/{helmId}`: the id parameter is `<kind>Id`), and its list in the environment's batch bodies (`helms`, `helm_ids`). */
  kind: ServiceKindName;
  /** Its `service_type`: also the scope of its variables and its audit and alert `target_type`. */
  type: string;
  tag: string;
  responseSchema: string;
  createSchema: string;
  editSchema: string;
  build(ctx: EmulatorContext, env: ApiRecord, body: Body, old?: ApiRecord): Fields;
  /** It holds variables of the scope `type` (a database holds none: api-notes 4). */
  holdsVariables: boolean;
  /** An item of its list in the environment's batch deploy body: the field holding the id (absent: the items are ids). */
  batchIdField?: string;
  /** Its own `POST /<kind>/{id}/deploy`: the body's schema (absent: it takes none), the query's, and whether the body may repeat the id. */
  deploy: { body?: string; query?: string; idInBody?: true };
  /** What a deploy request asks of a service of this kind (400 naming the field); absent: nothing (its current version). */
  deployVersion?(svc: ApiRecord, body: Record<string, any>, field: string): DeployVersion;
  /** `POST /environment/{id}/service/restart-service` takes its ids (RestartServicesRequest). */
  restartable?: true;
  /** Its generated links (`/<kind>/{id}/link`): every port of it, or its publicly accessible ones; absent: it has none. */
  links?: 'every-port' | 'public-ports';
}

/** The `<kind>s` list of an environment's batch deploy body, the `<kind>_ids` of its batch delete/stop bodies. */
export const batchListOf = (k: KindDef): string => `${k.kind}s`;
export const idListOf = (k: KindDef): string => `${k.kind}_ids`;
/** The id parameter of its routes (`helmId`). */
export const idParamOf = (k: KindDef): string => `${k.kind}Id`;
/** The kind whose `service_type` this is (undefined: none). */
export const kindOfType = (type: unknown): KindDef | undefined => KINDS.find((k) => k.type === type);

const DB_PORTS: Record<string, number> = { POSTGRESQL: 5432, MYSQL: 3306, MONGODB: 27017, REDIS: 6379 };
const DB_MEMORY: Record<string, number> = { POSTGRESQL: 256, MYSQL: 512, MONGODB: 256, REDIS: 256 };
/** Default instance type of a MANAGED database, per provider (AWS: per type, see the AWS listing). */
function defaultManagedInstance(provider: string, type: string): string {
  if (provider === 'AWS') return AWS_MANAGED_DB_INSTANCE_TYPES[type]?.[0] ?? 'db.t3.micro';
  return provider === 'GCP' ? 'db-custom-1-3840' : provider === 'SCW' ? 'db-dev-s' : 'db.t3.micro';
}

export const KINDS: KindDef[] = [
  {
    kind: 'application', type: 'APPLICATION', tag: 'Applications',
    responseSchema: 'Application', createSchema: 'ApplicationRequest', editSchema: 'ApplicationEditRequest',
    holdsVariables: true, batchIdField: 'application_id', links: 'public-ports', restartable: true,
    deploy: { body: 'ApplicationDeployRequest' },
    deployVersion: (_svc, body) => ({ version: body.git_commit_id ? { git_commit_id: body.git_commit_id } : {} }),
    build(ctx, env, b, old) {
      const repo = b.git_repository ?? old?.git_repository;
      const f: Fields = {
        name: b.name ?? old?.name,
        ...computeCommon(ctx, b, old),
        git_repository: gitRepository(repo, old?.git_repository),
        build_mode: b.build_mode ?? 'DOCKER',
        dockerfile_path: b.dockerfile_path ?? 'Dockerfile',
        docker_target_build_stage: b.docker_target_build_stage ?? null,
      };
      checkResources(ctx, env, f);
      return f;
    },
  },
  {
    kind: 'container', type: 'CONTAINER', tag: 'Containers',
    responseSchema: 'Container', createSchema: 'ContainerRequest', editSchema: 'ContainerRequest',
    holdsVariables: true, batchIdField: 'id', links: 'public-ports', restartable: true,
    deploy: { body: 'ContainerDeployRequest' },
    deployVersion: (_svc, body) => ({ version: body.image_tag ? { image_tag: body.image_tag } : {} }),
    build(ctx, env, b, old) {
      const reg = checkRegistry(ctx, b.registry_id, 'registry_id');
      const f: Fields = {
        name: b.name,
        ...computeCommon(ctx, b, old),
        registry_id: reg.id,
        registry: { id: reg.id, name: reg.name, url: reg.url, kind: reg.kind },
        image_name: b.image_name,
        tag: b.tag,
      };
      checkResources(ctx, env, f);
      return f;
    },
  },
  {
    kind: 'database', type: 'DATABASE', tag: 'Databases',
    responseSchema: 'Database', createSchema: 'DatabaseRequest', editSchema: 'DatabaseEditRequest',
    holdsVariables: false, restartable: true,
    deploy: {},
    build(ctx, env, b, old) {
      if (old) {
        if (b.type !== undefined && b.type !== old.type) throw invalidField('type', `the type of a database cannot be changed (it is ${old.type}); create a new database`);
        if (b.mode !== undefined && b.mode !== old.mode) throw invalidField('mode', `the mode of a database cannot be changed (it is ${old.mode}); create a new database`);
      }
      const type: string = old?.type ?? b.type;
      const mode: string = old?.mode ?? b.mode;
      const pick = (k: string, dflt: unknown) => (b[k] !== undefined ? b[k] : old ? old[k] : dflt);
      const provider = clusterOf(ctx, env)?.cloud_provider ?? 'AWS';
      const f: Fields = {
        name: pick('name', undefined),
        description: pick('description', null),
        type,
        mode,
        version: pick('version', undefined),
        accessibility: pick('accessibility', 'PRIVATE'),
        cpu: pick('cpu', 250),
        memory: pick('memory', DB_MEMORY[type] ?? 256),
        storage: pick('storage', 10),
        instance_type: pick('instance_type', mode === 'MANAGED' ? defaultManagedInstance(provider, type) : null),
        disk_type: pick('disk_type', mode === 'MANAGED' ? 'gp3' : null),
        disk_encrypted: mode === 'MANAGED',
        annotations_groups: b.annotations_groups !== undefined ? groupRefs(ctx, b.annotations_groups, 'annotations_groups') : old?.annotations_groups ?? [],
        labels_groups: b.labels_groups !== undefined ? groupRefs(ctx, b.labels_groups, 'labels_groups') : old?.labels_groups ?? [],
        icon_uri: pick('icon_uri', null),
        port: DB_PORTS[type] ?? 5432,
      };
      const cluster = clusterOf(ctx, env);
      if (mode === 'MANAGED' && cluster?.cloud_provider === 'AWS') {
        const allowed = awsManagedDbInstanceTypes(cluster.region, type);
        if (allowed && !allowed.includes(f.instance_type)) {
          throw invalidField('instance_type', `'${f.instance_type}' is not offered for ${type} in ${cluster.region}; allowed: ${allowed.join(', ')} (GET /aws/managedDatabase/instanceType/${cluster.region}/${type})`);
        }
      }
      if (mode === 'CONTAINER') {
        if (f.instance_type !== null) throw invalidField('instance_type', 'only MANAGED databases have an instance_type; CONTAINER databases use cpu and memory');
        if (f.disk_type !== null) throw invalidField('disk_type', 'only MANAGED databases have a disk_type (gp2, gp3)');
        // Seed 2.4: cpu and memory are ignored in managed mode (instance_type sizes it), so only a
        // container database is bounded by maximum_cpu / maximum_memory.
        checkResources(ctx, env, f);
      }
      return f;
    },
  },
  {
    kind: 'job', type: 'JOB', tag: 'Jobs',
    responseSchema: 'Job', createSchema: 'JobRequest', editSchema: 'JobRequest',
    holdsVariables: true, batchIdField: 'id',
    deploy: { body: 'JobDeployRequest', query: 'JobDeployQuery' },
    deployVersion(svc, body, field) {
      const version: DeployVersion['version'] = {};
      if (body.image_tag && body.git_commit_id) {
        throw badRequest(`${field}: 'image_tag' and 'git_commit_id' cannot both be set (image_tag is for jobs built from an image, git_commit_id for jobs built from git)`);
      }
      if (body.image_tag) {
        if (svc.source?.docker) throw invalidField('image_tag', `job '${svc.name}' is built from git; use git_commit_id`);
        version.image_tag = body.image_tag;
      }
      if (body.git_commit_id) {
        if (svc.source?.image) throw invalidField('git_commit_id', `job '${svc.name}' runs an image; use image_tag`);
        version.git_commit_id = body.git_commit_id;
      }
      return { version };
    },
    build(ctx, env, b) {
      const src = b.source ?? {};
      const hasImage = src.image != null;
      const hasDocker = src.docker != null;
      if (hasImage === hasDocker) throw invalidField('source', 'give exactly one of source.image or source.docker');
      let source: Fields;
      if (hasImage) {
        checkRegistry(ctx, src.image.registry_id, 'source.image.registry_id');
        source = { image: { image_name: src.image.image_name, tag: src.image.tag, registry_id: src.image.registry_id }, docker: null };
      } else {
        source = {
          image: null,
          docker: {
            git_repository: gitRepository(src.docker.git_repository, undefined, 'source.docker.git_repository'),
            dockerfile_path: src.docker.dockerfile_path ?? 'Dockerfile',
            dockerfile_raw: src.docker.dockerfile_raw ?? null,
            docker_target_build_stage: src.docker.docker_target_build_stage ?? null,
          },
        };
      }
      const sch = b.schedule ?? {};
      const cron = sch.cronjob ?? null;
      const lifecycle = ['on_start', 'on_stop', 'on_delete'].filter((k) => sch[k] != null);
      if (!cron && lifecycle.length === 0) throw invalidField('schedule', 'give schedule.cronjob, or at least one of schedule.on_start, on_stop, on_delete');
      if (cron && lifecycle.length > 0) throw invalidField('schedule', 'a job is either a cron job (schedule.cronjob) or a lifecycle job (on_start/on_stop/on_delete), not both');
      const hook = (h: Body | null | undefined) => (h ? { arguments: h.arguments ?? [], entrypoint: h.entrypoint ?? null } : null);
      const f: Fields = {
        name: b.name,
        description: b.description ?? null,
        cpu: b.cpu ?? 500,
        memory: b.memory ?? 512,
        gpu: b.gpu ?? 0,
        ephemeral_storage_in_gib: b.ephemeral_storage_in_gib ?? null,
        cpu_architecture: b.cpu_architecture ?? 'AMD64',
        max_nb_restart: b.max_nb_restart ?? 0,
        max_duration_seconds: b.max_duration_seconds ?? 300,
        auto_preview: b.auto_preview ?? false,
        auto_deploy: b.auto_deploy ?? false,
        port: b.port ?? null,
        healthchecks: b.healthchecks ?? NO_HEALTHCHECKS,
        source,
        schedule: cron
          ? { cronjob: { arguments: cron.arguments ?? [], entrypoint: cron.entrypoint ?? null, timezone: cron.timezone ?? 'Etc/UTC', scheduled_at: cron.scheduled_at }, on_start: null, on_stop: null, on_delete: null }
          : { on_start: hook(sch.on_start), on_stop: hook(sch.on_stop), on_delete: hook(sch.on_delete), cronjob: null, lifecycle_type: sch.lifecycle_type ?? 'GENERIC' },
        job_type: cron ? 'CRON' : 'LIFECYCLE',
        annotations_groups: groupRefs(ctx, b.annotations_groups, 'annotations_groups'),
        labels_groups: groupRefs(ctx, b.labels_groups, 'labels_groups'),
        icon_uri: b.icon_uri ?? null,
      };
      checkResources(ctx, env, f);
      return f;
    },
  },
  {
    kind: 'helm', type: 'HELM', tag: 'Helms',
    responseSchema: 'Helm', createSchema: 'HelmRequest', editSchema: 'HelmRequest',
    holdsVariables: true, batchIdField: 'id', links: 'every-port',
    deploy: { body: 'HelmDeployRequest', query: 'HelmDeployQuery' },
    deployVersion: (_svc, body) => ({
      version: { ...(body.chart_version ? { chart_version: body.chart_version } : {}), ...(body.git_commit_id ? { git_commit_id: body.git_commit_id } : {}) },
    }),
    build(ctx, _env, b, old) {
      const source = buildHelmSource(ctx, b.source, old?.source);
      const vo = b.values_override ?? {};
      return {
        name: b.name,
        description: b.description ?? null,
        timeout_sec: b.timeout_sec ?? 600,
        auto_preview: b.auto_preview ?? false,
        auto_deploy: b.auto_deploy ?? false,
        arguments: b.arguments ?? [],
        allow_cluster_wide_resources: b.allow_cluster_wide_resources ?? false,
        source,
        values_override: { set: vo.set ?? [], set_string: vo.set_string ?? [], set_json: vo.set_json ?? [], file: vo.file ?? null },
        ports: (b.ports ?? []).map((p: Body, i: number) => {
          const known = new Set((old?.ports ?? []).map((x: Body) => x.id));
          if (p.id !== undefined && !known.has(p.id)) throw invalidField(`ports[${i}].id`, `no port with id '${p.id}' on this service`);
          return { id: p.id ?? ctx.newId(), name: p.name ?? `p${p.internal_port}`, internal_port: p.internal_port, external_port: p.external_port ?? null, namespace: p.namespace ?? null, protocol: p.protocol ?? 'HTTP', is_default: p.is_default ?? i === 0, service_name: p.service_name ?? null };
        }),
        annotations_groups: groupRefs(ctx, b.annotations_groups, 'annotations_groups'),
        labels_groups: groupRefs(ctx, b.labels_groups, 'labels_groups'),
        icon_uri: b.icon_uri ?? null,
      };
    },
  },
  {
    kind: 'terraform', type: 'TERRAFORM', tag: 'Terraform',
    responseSchema: 'Terraform', createSchema: 'TerraformRequest', editSchema: 'TerraformRequest',
    holdsVariables: true, batchIdField: 'id',
    deploy: { body: 'TerraformDeployRequest', idInBody: true },
    deployVersion(svc, body) {
      if (body.id && body.id !== svc.id) throw invalidField('id', `must be the id of the terraform service in the path ('${svc.id}') or null`);
      return { version: body.git_commit_id ? { git_commit_id: body.git_commit_id } : {}, sub_action: terraformSubAction(body.action) };
    },
    build(ctx, env, b, old) {
      const vs = b.terraform_variables_source ?? {};
      const seen = new Set<string>();
      const tfVars = (vs.tf_vars ?? []).map((v: Body, i: number) => {
        if (seen.has(v.key)) throw invalidField(`terraform_variables_source.tf_vars[${i}].key`, `duplicate key '${v.key}'`);
        seen.add(v.key);
        return { key: v.key, value: v.value ?? null, secret: v.secret ?? false };
      });
      const jr = b.job_resources ?? {};
      const f: Fields = {
        name: b.name,
        description: b.description ?? null,
        auto_deploy_config: b.auto_deploy_config ?? { auto_deploy: false, terraform_action: 'DEFAULT' },
        terraform_files_source: { git_repository: gitRepository(b.terraform_files_source.git_repository, old?.terraform_files_source?.git_repository, 'terraform_files_source.git_repository') },
        terraform_variables_source: { tf_var_file_paths: vs.tf_var_file_paths ?? [], tf_vars: tfVars },
        backend: b.backend ?? { kubernetes: {}, user_provided: null },
        engine: b.engine ?? 'TERRAFORM',
        provider_version: { read_from_terraform_block: b.provider_version?.read_from_terraform_block ?? false, explicit_version: b.provider_version?.explicit_version ?? '1.9.0' },
        job_resources: { cpu_milli: jr.cpu_milli ?? 500, ram_mib: jr.ram_mib ?? 512, gpu: jr.gpu ?? 0, storage_gib: jr.storage_gib ?? 1 },
        timeout_sec: b.timeout_sec ?? 1800,
        use_cluster_credentials: b.use_cluster_credentials ?? false,
        action_extra_arguments: b.action_extra_arguments ?? {},
        dockerfile_fragment: b.dockerfile_fragment ?? null,
        annotations_groups: groupRefs(ctx, b.annotations_groups, 'annotations_groups'),
        labels_groups: groupRefs(ctx, b.labels_groups, 'labels_groups'),
        icon_uri: b.icon_uri ?? null,
      };
      checkResources(ctx, env, { cpu: f.job_resources.cpu_milli, memory: f.job_resources.ram_mib }, 'job_resources.cpu_milli', 'job_resources.ram_mib');
      return f;
    },
  },
];

/**
 * Secret terraform variables are write-only: their value is kept in `secretValues` and the record
 * holds null. A PUT that sends a secret variable without a value keeps the stored one.
 */
export function stashTerraformSecrets(ctx: EmulatorContext, serviceId: string, f: Fields): void {
  const vars = f.terraform_variables_source.tf_vars as Array<{ key: string; value: string | null; secret: boolean }>;
  const keep = new Set<string>();
  for (const v of vars) {
    if (!v.secret) continue;
    const slot = `tfvar:${serviceId}:${v.key}`;
    keep.add(slot);
    if (v.value !== null) ctx.state.secretValues[slot] = v.value;
    v.value = null;
  }
  for (const slot of Object.keys(ctx.state.secretValues)) {
    if (slot.startsWith(`tfvar:${serviceId}:`) && !keep.has(slot)) delete ctx.state.secretValues[slot];
  }
}

export const defaultIconUri = (serviceType: string): string => `app://qovery-console/${serviceType.toLowerCase()}`;

/** The service as the API returns it: groups embedded in full, current cluster limits. */
export function presentService(ctx: EmulatorContext, rec: ApiRecord): ApiRecord {
  const env = ctx.state.environments[rec.environment.id];
  const expand = (refs: Array<{ id: string }> | undefined, coll: Record<string, ApiRecord>) => (refs ?? []).map((r) => coll[r.id]).filter(Boolean);
  const out: ApiRecord = {
    ...rec,
    annotations_groups: expand(rec.annotations_groups, ctx.state.annotationsGroups),
    labels_groups: expand(rec.labels_groups, ctx.state.labelsGroups),
  };
  if (env && rec.service_type !== 'HELM' && rec.service_type !== 'TERRAFORM') Object.assign(out, limits(ctx, env));
  // The real records always carry an icon (icon_uri is required there): a default per kind when none was set.
  out.icon_uri = rec.icon_uri ?? defaultIconUri(String(rec.service_type));
  if (rec.service_type === 'APPLICATION') out.maximun_gpu = 0; // sic, as the real Application record
  if (rec.service_type === 'CONTAINER' || rec.service_type === 'JOB') out.maximum_gpu = 0;
  if (rec.service_type === 'TERRAFORM') out.auto_deploy = Boolean(rec.auto_deploy_config?.auto_deploy);
  if (rec.service_type === 'JOB' && rec.source?.image) {
    const reg = ctx.state.containerRegistries[rec.source.image.registry_id];
    if (reg) out.source = { ...rec.source, image: { ...rec.source.image, registry: { id: reg.id, name: reg.name, url: reg.url, kind: reg.kind } } };
  }
  if (rec.service_type === 'HELM') out.source = presentHelmSource(ctx, rec.source);
  if (rec.service_type === 'DATABASE') out.host = `z${rec.id.slice(0, 8)}-${String(rec.name).toLowerCase()}`;
  return out;
}

export function findService(ctx: EmulatorContext, kind: KindDef, id: string): ApiRecord {
  const rec = ctx.state.services[id];
  if (!rec || rec.service_type !== kind.type) throw notFound(kind.kind, id);
  return rec;
}
