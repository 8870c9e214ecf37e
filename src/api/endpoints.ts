/**
 * `InfraApi`: one method per call the reconciler makes, with the paths of the seed (section 4.2)
 * and, where the seed is silent, of the real API (reference/api-notes.md). No business logic:
 * each method is a single request (list responses unwrapped from `{results}`).
 *
 * Retries follow the client's rule (GET/PUT/DELETE retried, POST not) except for POSTs that
 * create nothing, marked `retry: true` below.
 */
import type { ApiClient } from './client.js';
import type { ServiceKind } from '../model/resource.js';
import { serviceMappings } from '../model/kinds/index.js';

/** A record as the API returns it: loosely typed, with the fields driftless reads named. */
export type ApiObject = { id: string; created_at?: string; updated_at?: string | null } & Record<string, unknown>;
export type Body = Record<string, unknown>;

export interface Organization extends ApiObject {
  name: string;
  plan?: string;
  billing_deployment_restriction?: string | null;
}
export interface Cluster extends ApiObject {
  name: string;
  region?: string;
  cloud_provider?: string;
  status?: string;
}
export interface ClusterStatus extends Record<string, unknown> {
  cluster_id: string;
  status: string;
  is_deployed?: boolean;
  next_k8s_available_version?: string | null;
}
export interface ContainerRegistry extends ApiObject {
  name: string;
  kind?: string;
  url?: string;
}
export interface InstanceType extends Record<string, unknown> {
  type: string;
  name: string;
  cpu?: number;
  ram_in_gb?: number;
}
export interface TerraformVariableDefinition extends Record<string, unknown> {
  key: string;
  sensitive?: boolean;
  nullable?: boolean;
  default?: string | null;
  description?: string | null;
}
export interface Project extends ApiObject {
  name: string;
  description?: string | null;
}
export interface Environment extends ApiObject {
  name: string;
  mode?: string;
  cluster_id?: string;
}
/** A service of any kind, discriminated by `service_type` (APPLICATION, CONTAINER, ...). */
export interface Service extends ApiObject {
  name: string;
  service_type?: string;
  environment?: { id: string };
}
export interface ServiceStatus extends Record<string, unknown> {
  id: string;
  state: string;
  service_deployment_status?: string;
  last_deployment_date?: string | null;
  deployment_request_id?: string | null;
}
export interface EnvironmentStatuses extends Record<string, unknown> {
  environment: Record<string, unknown> & { id?: string; state?: string };
  applications: ServiceStatus[];
  containers: ServiceStatus[];
  jobs: ServiceStatus[];
  databases: ServiceStatus[];
  helms: ServiceStatus[];
  terraforms: ServiceStatus[];
}
export interface DeploymentStage extends ApiObject {
  name: string;
  description?: string | null;
  deployment_order?: number;
  environment?: { id: string };
  services?: Array<{ id?: string; service_id: string; service_type?: string; is_skipped?: boolean }>;
}
export interface Variable extends ApiObject {
  key: string;
  value?: string | null;
  scope: string;
  variable_type?: string;
  is_secret?: boolean;
  mount_path?: string | null;
  description?: string | null;
  aliased_variable?: Record<string, unknown> | null;
  overridden_variable?: Record<string, unknown> | null;
}
export type VariableScope = 'APPLICATION' | 'CONTAINER' | 'JOB' | 'HELM' | 'TERRAFORM' | 'ENVIRONMENT' | 'PROJECT' | 'BUILT_IN';
export interface AnnotationsGroup extends ApiObject {
  name: string;
  annotations: Array<{ key: string; value: string }>;
  scopes: string[];
}
export interface LabelsGroup extends ApiObject {
  name: string;
  labels: Array<{ key: string; value: string; propagate_to_cloud_provider: boolean }>;
}
export interface AlertReceiver extends ApiObject {
  name: string;
  type: string;
}
export interface AlertRule extends ApiObject {
  name: string;
  source?: string;
  target?: Record<string, unknown>;
}
export interface Webhook extends ApiObject {
  target_url: string;
  events: string[];
  enabled?: boolean;
}
export interface Backup extends ApiObject {
  name: string;
  message: string;
}
export interface LogLine extends Record<string, unknown> {
  id?: string;
  created_at?: string;
  message: string;
}
export interface Page<T> {
  page?: number;
  page_size?: number;
  results: T[];
}

/** Ids per kind for the environment-level batch delete (seed 4.2). */
export interface ServiceIdsByKind {
  application_ids?: string[];
  container_ids?: string[];
  database_ids?: string[];
  job_ids?: string[];
  helm_ids?: string[];
  terraform_ids?: string[];
}

/** Batch deploy body (DeployAllRequest). */
export interface DeployAllRequest {
  applications?: Array<{ application_id: string; git_commit_id?: string }>;
  databases?: string[];
  containers?: Array<{ id: string; image_tag?: string }>;
  jobs?: Array<{ id: string; image_tag?: string; git_commit_id?: string }>;
  helms?: Array<{ id: string; chart_version?: string; git_commit_id?: string; values_override_git_commit_id?: string }>;
  terraforms?: Array<{ id?: string; git_commit_id?: string; action?: string | null }>;
}

/** What a single-service deploy may pin. Each kind takes the fields it knows. */
export interface DeployOptions {
  git_commit_id?: string;
  image_tag?: string;
  chart_version?: string;
  values_override_git_commit_id?: string;
  /** job: START, STOP, DELETE, CRON; helm: DIFF. */
  forceEvent?: string;
  /** terraform: PLAN, FORCE_UNLOCK, MIGRATE_STATE. */
  action?: string | null;
}

export type CloudProvider = 'AWS' | 'GCP' | 'AZURE' | 'SCW';

const INSTANCE_TYPE_PATHS: Record<CloudProvider, string> = {
  GCP: '/gcp/instanceType/{region}',
  AWS: '/aws/eks/instanceType/{region}',
  AZURE: '/azure/aks/instanceType/{region}',
  SCW: '/scaleway/instanceType/{region}',
};

/** `{results: [...]}` per the seed; a bare array is accepted too. */
export function unwrapList<T>(body: unknown): T[] {
  if (Array.isArray(body)) return body as T[];
  if (body && typeof body === 'object' && Array.isArray((body as { results?: unknown }).results)) {
    return (body as { results: T[] }).results;
  }
  if (body === undefined || body === null || body === '') return [];
  throw new Error('unexpected list response from the API: expected {results: [...]} or an array');
}

export class InfraApi {
  constructor(readonly client: ApiClient) {}

  private async list<T>(path: string, params?: Record<string, string>, query?: Record<string, string | number | boolean | undefined>): Promise<T[]> {
    return unwrapList<T>(await this.client.get(path, { params, query }));
  }

  // ---- organization ------------------------------------------------------------------------

  /** `GET /organization`: the real API returns `{results:[...]}`, the seed a single record. */
  async listOrganizations(): Promise<Organization[]> {
    const body = await this.client.get<unknown>('/organization');
    if (body && typeof body === 'object' && !Array.isArray(body) && !('results' in body)) return [body as Organization];
    return unwrapList<Organization>(body);
  }

  /**
   * The organization the token works on: the one with this id or name when given, else the only
   * one. Throws a plain Error naming the choices when it is ambiguous or absent.
   */
  async getOrganization(idOrName?: string): Promise<Organization> {
    const orgs = await this.listOrganizations();
    if (idOrName !== undefined) {
      const found = orgs.find((o) => o.id === idOrName || o.name?.toLowerCase() === idOrName.toLowerCase());
      if (!found) throw new Error(`organization "${idOrName}" not found; the token sees: ${orgs.map((o) => o.name).join(', ') || 'none'}`);
      return found;
    }
    if (orgs.length === 1) return orgs[0]!;
    if (orgs.length === 0) throw new Error('the API token gives access to no organization');
    throw new Error(`the API token sees several organizations (${orgs.map((o) => o.name).join(', ')}): name one with --organization`);
  }

  updateOrganization(organizationId: string, body: Body): Promise<Organization> {
    return this.client.put('/organization/{organizationId}', { params: { organizationId }, body });
  }

  // ---- clusters, registries, instance types ---------------------------------------------------

  listClusters(organizationId: string): Promise<Cluster[]> {
    return this.list('/organization/{organizationId}/cluster', { organizationId });
  }

  listClusterStatuses(organizationId: string): Promise<ClusterStatus[]> {
    return this.list('/organization/{organizationId}/cluster/status', { organizationId });
  }

  upgradeCluster(clusterId: string): Promise<ClusterStatus> {
    return this.client.post('/cluster/{clusterId}/upgrade', { params: { clusterId } });
  }

  listContainerRegistries(organizationId: string): Promise<ContainerRegistry[]> {
    return this.list('/organization/{organizationId}/containerRegistry', { organizationId });
  }

  /** Kubernetes node instance types of a cloud provider in a region (GCP per the seed; others alike). */
  listInstanceTypes(provider: CloudProvider, region: string): Promise<InstanceType[]> {
    const path = INSTANCE_TYPE_PATHS[provider];
    if (!path) throw new Error(`no instance-type listing for cloud provider "${provider}": allowed are ${Object.keys(INSTANCE_TYPE_PATHS).join(', ')}`);
    return this.list(path, { region });
  }

  /** Instance types for managed databases (AWS only in the real API). */
  listManagedDatabaseInstanceTypes(region: string, databaseType: string): Promise<InstanceType[]> {
    return this.list('/aws/managedDatabase/instanceType/{region}/{databaseType}', { region, databaseType });
  }

  /** Reads a repository; creates nothing, so it is retried like a GET. */
  async parseTerraformVariablesFromGitRepo(organizationId: string, gitRepository: Body): Promise<TerraformVariableDefinition[]> {
    const body = await this.client.post('/organization/{organizationId}/parseTerraformVariablesFromGitRepo', {
      params: { organizationId },
      body: { git_repository: gitRepository },
      retry: true,
    });
    return unwrapList(body);
  }

  // ---- projects and environments ---------------------------------------------------------------

  listProjects(organizationId: string): Promise<Project[]> {
    return this.list('/organization/{organizationId}/project', { organizationId });
  }
  getProject(projectId: string): Promise<Project> {
    return this.client.get('/project/{projectId}', { params: { projectId } });
  }
  createProject(organizationId: string, body: Body): Promise<Project> {
    return this.client.post('/organization/{organizationId}/project', { params: { organizationId }, body });
  }
  updateProject(projectId: string, body: Body): Promise<Project> {
    return this.client.put('/project/{projectId}', { params: { projectId }, body });
  }
  async deleteProject(projectId: string): Promise<void> {
    await this.client.delete('/project/{projectId}', { params: { projectId } });
  }

  listEnvironments(projectId: string): Promise<Environment[]> {
    return this.list('/project/{projectId}/environment', { projectId });
  }
  getEnvironment(environmentId: string): Promise<Environment> {
    return this.client.get('/environment/{environmentId}', { params: { environmentId } });
  }
  createEnvironment(projectId: string, body: Body): Promise<Environment> {
    return this.client.post('/project/{projectId}/environment', { params: { projectId }, body });
  }
  updateEnvironment(environmentId: string, body: Body): Promise<Environment> {
    return this.client.put('/environment/{environmentId}', { params: { environmentId }, body });
  }
  async deleteEnvironment(environmentId: string): Promise<void> {
    await this.client.delete('/environment/{environmentId}', { params: { environmentId } });
  }

  /** Every service of the environment, all kinds, full records: one request. */
  listEnvironmentServices(environmentId: string): Promise<Service[]> {
    return this.list('/environment/{environmentId}/services', { environmentId });
  }

  /** The statuses of the environment and of all its services: one request. */
  getEnvironmentStatuses(environmentId: string): Promise<EnvironmentStatuses> {
    return this.client.get('/environment/{environmentId}/statuses', { params: { environmentId } });
  }

  // ---- deployment stages -------------------------------------------------------------------------

  /** Every stage of the environment with its service memberships: one request. */
  listDeploymentStages(environmentId: string): Promise<DeploymentStage[]> {
    return this.list('/environment/{environmentId}/deploymentStage', { environmentId });
  }
  getDeploymentStage(deploymentStageId: string): Promise<DeploymentStage> {
    return this.client.get('/deploymentStage/{deploymentStageId}', { params: { deploymentStageId } });
  }
  createDeploymentStage(environmentId: string, body: Body): Promise<DeploymentStage> {
    return this.client.post('/environment/{environmentId}/deploymentStage', { params: { environmentId }, body });
  }
  updateDeploymentStage(deploymentStageId: string, body: Body): Promise<DeploymentStage> {
    return this.client.put('/deploymentStage/{deploymentStageId}', { params: { deploymentStageId }, body });
  }
  async deleteDeploymentStage(deploymentStageId: string): Promise<void> {
    await this.client.delete('/deploymentStage/{deploymentStageId}', { params: { deploymentStageId } });
  }
  /** Moves a service into the stage; returns the environment's stage list. */
  async moveServiceToStage(deploymentStageId: string, serviceId: string, body: Body = {}): Promise<DeploymentStage[]> {
    return unwrapList(
      await this.client.put('/deploymentStage/{deploymentStageId}/service/{serviceId}', { params: { deploymentStageId, serviceId }, body }),
    );
  }
  async moveStageAfter(deploymentStageId: string, stageId: string): Promise<DeploymentStage[]> {
    return unwrapList(await this.client.put('/deploymentStage/{deploymentStageId}/moveAfter/{stageId}', { params: { deploymentStageId, stageId } }));
  }
  async moveStageBefore(deploymentStageId: string, stageId: string): Promise<DeploymentStage[]> {
    return unwrapList(await this.client.put('/deploymentStage/{deploymentStageId}/moveBefore/{stageId}', { params: { deploymentStageId, stageId } }));
  }

  // ---- services ----------------------------------------------------------------------------------

  /** Services of one kind in an environment (full records). Prefer `listEnvironmentServices`. */
  listServices(kind: ServiceKind, environmentId: string): Promise<Service[]> {
    return this.list(`/environment/{environmentId}/${kind}`, { environmentId });
  }
  getService(kind: ServiceKind, id: string): Promise<Service> {
    return this.client.get(`/${kind}/{id}`, { params: { id } });
  }
  createService(kind: ServiceKind, environmentId: string, body: Body): Promise<Service> {
    return this.client.post(`/environment/{environmentId}/${kind}`, { params: { environmentId }, body });
  }
  /** PUT: a full replacement for application/container/job/helm/terraform, partial for database. */
  updateService(kind: ServiceKind, id: string, body: Body): Promise<Service> {
    return this.client.put(`/${kind}/{id}`, { params: { id }, body });
  }
  async deleteService(kind: ServiceKind, id: string): Promise<void> {
    await this.client.delete(`/${kind}/{id}`, { params: { id } });
  }

  /** Environment-level batch delete (asynchronous; 200 with no body). */
  async deleteServices(environmentId: string, ids: ServiceIdsByKind): Promise<void> {
    await this.client.post('/environment/{environmentId}/service/delete', { params: { environmentId }, body: ids });
  }

  /** Environment-level batch deploy of the selected services. */
  deployServices(environmentId: string, body: DeployAllRequest): Promise<Record<string, unknown> | undefined> {
    return this.client.post('/environment/{environmentId}/service/deploy', { params: { environmentId }, body });
  }

  /** Deploys one service, with the body and query its kind takes. */
  deployService(kind: ServiceKind, id: string, opts: DeployOptions = {}): Promise<ServiceStatus> {
    const params = { id };
    const path = `/${kind}/{id}/deploy`;
    // What each kind's deploy takes: its descriptor's (src/model/kinds).
    const d = serviceMappings(kind).deploy;
    const picked = pick(opts, d.bodyFields as Array<keyof DeployOptions>);
    const body = d.idInBody ? { id, ...picked } : picked;
    const query = d.forceEvent ? { query: { forceEvent: opts.forceEvent } } : {};
    return this.client.post(path, { params, ...query, ...(d.bodyFields.length > 0 || d.idInBody ? { body } : {}) });
  }

  getServiceStatus(kind: ServiceKind, id: string): Promise<ServiceStatus> {
    return this.client.get(`/${kind}/{id}/status`, { params: { id } });
  }

  /** The last `tail` log lines of a service (the real API ignores `tail` and returns up to 1000). */
  async getServiceLogs(kind: ServiceKind, id: string, tail?: number): Promise<LogLine[]> {
    const body = await this.client.get<unknown>(`/${kind}/{id}/log`, { params: { id }, query: { tail } });
    const lines = unwrapList<LogLine>(body);
    return tail !== undefined && lines.length > tail ? lines.slice(-tail) : lines;
  }

  // ---- databases ---------------------------------------------------------------------------------

  cloneDatabase(databaseId: string, body: { name: string; environment_id: string }): Promise<Service> {
    return this.client.post('/database/{databaseId}/clone', { params: { databaseId }, body });
  }
  backupDatabase(databaseId: string, body: { name: string; message: string }): Promise<Backup> {
    return this.client.post('/database/{databaseId}/backup', { params: { databaseId }, body });
  }

  // ---- variables (unified /variable) -------------------------------------------------------------

  /**
   * Variables visible from a parent: its own plus those inherited from higher scopes (filter on
   * `scope` to keep the parent's own).
   */
  listVariables(parentId: string, scope: VariableScope, isSecret?: boolean): Promise<Variable[]> {
    return this.list('/variable', undefined, { parent_id: parentId, scope, is_secret: isSecret });
  }
  /** Body: key, value (may be a SecretValue), is_secret, variable_scope, variable_parent_id, ... */
  createVariable(body: Body): Promise<Variable> {
    return this.client.post('/variable', { body });
  }
  updateVariable(variableId: string, body: Body): Promise<Variable> {
    return this.client.put('/variable/{variableId}', { params: { variableId }, body });
  }
  async deleteVariable(variableId: string): Promise<void> {
    await this.client.delete('/variable/{variableId}', { params: { variableId } });
  }
  /** Body: key, alias_scope, alias_parent_id (+ description). */
  createVariableAlias(variableId: string, body: Body): Promise<Variable> {
    return this.client.post('/variable/{variableId}/alias', { params: { variableId }, body });
  }
  /** Body: value, override_scope, override_parent_id (+ description). */
  createVariableOverride(variableId: string, body: Body): Promise<Variable> {
    return this.client.post('/variable/{variableId}/override', { params: { variableId }, body });
  }

  // ---- annotations and labels groups ---------------------------------------------------------------

  listAnnotationsGroups(organizationId: string): Promise<AnnotationsGroup[]> {
    return this.list('/organization/{organizationId}/annotationsGroups', { organizationId });
  }
  createAnnotationsGroup(organizationId: string, body: Body): Promise<AnnotationsGroup> {
    return this.client.post('/organization/{organizationId}/annotationsGroups', { params: { organizationId }, body });
  }
  updateAnnotationsGroup(organizationId: string, annotationsGroupId: string, body: Body): Promise<AnnotationsGroup> {
    return this.client.put('/organization/{organizationId}/annotationsGroups/{annotationsGroupId}', {
      params: { organizationId, annotationsGroupId },
      body,
    });
  }
  async deleteAnnotationsGroup(organizationId: string, annotationsGroupId: string): Promise<void> {
    await this.client.delete('/organization/{organizationId}/annotationsGroups/{annotationsGroupId}', { params: { organizationId, annotationsGroupId } });
  }

  listLabelsGroups(organizationId: string): Promise<LabelsGroup[]> {
    return this.list('/organization/{organizationId}/labelsGroups', { organizationId });
  }
  createLabelsGroup(organizationId: string, body: Body): Promise<LabelsGroup> {
    return this.client.post('/organization/{organizationId}/labelsGroups', { params: { organizationId }, body });
  }
  updateLabelsGroup(organizationId: string, labelsGroupId: string, body: Body): Promise<LabelsGroup> {
    return this.client.put('/organization/{organizationId}/labelsGroups/{labelsGroupId}', { params: { organizationId, labelsGroupId }, body });
  }
  async deleteLabelsGroup(organizationId: string, labelsGroupId: string): Promise<void> {
    await this.client.delete('/organization/{organizationId}/labelsGroups/{labelsGroupId}', { params: { organizationId, labelsGroupId } });
  }

  // ---- alert receivers and rules -------------------------------------------------------------------

  listAlertReceivers(organizationId: string): Promise<AlertReceiver[]> {
    return this.list('/organization/{organizationId}/alert-receivers', { organizationId });
  }
  /** Body includes organization_id. */
  createAlertReceiver(body: Body): Promise<AlertReceiver> {
    return this.client.post('/alert-receivers', { body });
  }
  updateAlertReceiver(alertReceiverId: string, body: Body): Promise<AlertReceiver> {
    return this.client.put('/alert-receivers/{alertReceiverId}', { params: { alertReceiverId }, body });
  }
  async deleteAlertReceiver(alertReceiverId: string): Promise<void> {
    await this.client.delete('/alert-receivers/{alertReceiverId}', { params: { alertReceiverId } });
  }
  /**
   * Sends a test message to a receiver before it is written. Creates nothing, so it is retried
   * (at worst a second test message arrives).
   */
  async validateAlertReceiver(alertReceiver: Body, message: string): Promise<void> {
    await this.client.post('/alert-receivers/validate', { body: { alert_receiver: alertReceiver, message }, retry: true });
  }
  async validateExistingAlertReceiver(alertReceiverId: string, message: string): Promise<void> {
    await this.client.post('/alert-receivers/{alertReceiverId}/validate', { params: { alertReceiverId }, body: { message }, retry: true });
  }

  /** Includes GHOST rules (`source`). */
  listAlertRules(organizationId: string): Promise<AlertRule[]> {
    return this.list('/organization/{organizationId}/alert-rules', { organizationId });
  }
  /** Body includes organization_id, cluster_id and target (immutable afterwards). */
  createAlertRule(body: Body): Promise<AlertRule> {
    return this.client.post('/alert-rules', { body });
  }
  /** Body = create body minus organization_id, cluster_id and target. */
  updateAlertRule(alertRuleId: string, body: Body): Promise<AlertRule> {
    return this.client.put('/alert-rules/{alertRuleId}', { params: { alertRuleId }, body });
  }
  async deleteAlertRule(alertRuleId: string): Promise<void> {
    await this.client.delete('/alert-rules/{alertRuleId}', { params: { alertRuleId } });
  }

  // ---- webhooks ----------------------------------------------------------------------------------

  listWebhooks(organizationId: string): Promise<Webhook[]> {
    return this.list('/organization/{organizationId}/webhook', { organizationId });
  }
  createWebhook(organizationId: string, body: Body): Promise<Webhook> {
    return this.client.post('/organization/{organizationId}/webhook', { params: { organizationId }, body });
  }
  /** Full replacement (the create body). */
  updateWebhook(organizationId: string, webhookId: string, body: Body): Promise<Webhook> {
    return this.client.put('/organization/{organizationId}/webhook/{webhookId}', { params: { organizationId, webhookId }, body });
  }
  async deleteWebhook(organizationId: string, webhookId: string): Promise<void> {
    await this.client.delete('/organization/{organizationId}/webhook/{webhookId}', { params: { organizationId, webhookId } });
  }

  // ---- deployment history --------------------------------------------------------------------------

  environmentDeploymentHistory(environmentId: string, opts: { pageSize?: number; startId?: string } = {}): Promise<Page<Record<string, unknown>>> {
    return this.client.get('/environment/{environmentId}/deploymentHistoryV2', {
      params: { environmentId },
      query: { pageSize: opts.pageSize, startId: opts.startId },
    });
  }
  serviceDeploymentHistory(kind: ServiceKind, id: string, opts: { pageSize?: number } = {}): Promise<Page<Record<string, unknown>>> {
    return this.client.get(`/${kind}/{id}/deploymentHistoryV2`, { params: { id }, query: { pageSize: opts.pageSize } });
  }
}

function pick(o: DeployOptions, keys: Array<keyof DeployOptions>): Body | undefined {
  const out: Body = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return Object.keys(out).length ? out : undefined;
}
