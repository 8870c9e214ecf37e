/**
 * The state a fresh emulator starts from: one organization, two clusters on two providers, one
 * container registry, two helm repositories and one API token per scope. Other tracks depend on
 * these names (`production-cluster`, `staging-cluster`, `docker-hub`, `bitnami`).
 *
 * `--seed FILE` gives a JSON document with any subset of the state's top-level keys; keys it omits
 * come from this default (so a fixture may hold only projects, for example).
 */
import { randomBytes } from 'node:crypto';
import { consoleTokenRecord, isConsoleToken } from './audit/identity.js';
import type { ApiRecord, ClusterStatusRecord, EmulatorState, TokenScope } from './state.js';

export interface SeedDeps {
  newId(): string;
  nowIso(): string;
}

export const TOKEN_SCOPES: TokenScope[] = ['ADMIN', 'WRITE', 'DEPLOY', 'READ'];

export function defaultState(deps: SeedDeps): EmulatorState {
  const now = deps.nowIso();
  const orgId = deps.newId();
  const org: ApiRecord = {
    id: orgId,
    created_at: now,
    updated_at: now,
    name: 'Acme',
    plan: 'TEAM_2025',
    description: 'Organization of the driftless emulator',
    website_url: 'https://example.com',
    repository: null,
    logo_url: null,
    icon_url: null,
    admin_emails: ['admin@example.com'],
    owner: deps.newId(),
    billing_deployment_restriction: null,
    organization_plan: { plan: 'TEAM_2025', audit_logs_retention_in_days: 30 },
  };
  const clusters: Record<string, ApiRecord> = {};
  const clusterStatuses: Record<string, ClusterStatusRecord> = {};
  const addCluster = (name: string, provider: string, region: string, instanceType: string, production: boolean, isDefault: boolean) => {
    const id = deps.newId();
    clusters[id] = {
      id, created_at: now, updated_at: now, organization: { id: orgId }, name,
      description: `${production ? 'Production' : 'Staging'} cluster on ${provider}`,
      region, cloud_provider: provider, min_running_nodes: production ? 3 : 1, max_running_nodes: production ? 10 : 3,
      disk_size: 50, instance_type: instanceType, kubernetes: 'MANAGED', status: 'DEPLOYED', version: '1.30',
      is_default: isDefault, is_demo: false, production, features: [], deployment_status: 'UP_TO_DATE',
      maximum_cpu: production ? 8000 : 4000, maximum_memory: production ? 16384 : 8192,
    };
    clusterStatuses[id] = {
      cluster_id: id, status: 'DEPLOYED', is_deployed: true, next_k8s_available_version: '1.31',
      last_execution_id: null, cluster_lock: null, last_deployment_date: now, reason: 'UNSPECIFIED',
    };
  };
  addCluster('production-cluster', 'AWS', 'eu-west-3', 't3.xlarge', true, true);
  addCluster('staging-cluster', 'GCP', 'europe-west1', 'e2-standard-4', false, false);
  const registryId = deps.newId();
  return {
    version: 1,
    organization: org,
    tokens: [
      ...TOKEN_SCOPES.map((scope) => ({
        token: `dl_${scope.toLowerCase()}_${randomBytes(20).toString('hex')}`,
        scope,
        name: `${scope.toLowerCase()} token`,
        organization_id: orgId,
      })),
      consoleTokenRecord(orgId),
    ],
    clusters,
    clusterStatuses,
    containerRegistries: {
      [registryId]: {
        id: registryId, created_at: now, updated_at: now, name: 'docker-hub', kind: 'DOCKER_HUB',
        description: 'Docker Hub', url: 'https://docker.io', cluster: null,
      },
    },
    helmRepositories: defaultHelmRepositories(deps),
    projects: {}, environments: {}, services: {}, serviceStatuses: {}, advancedSettings: {},
    deploymentStages: {}, variables: {}, secretValues: {}, annotationsGroups: {}, labelsGroups: {},
    alertReceivers: {}, alertReceiverSecrets: {}, alertRules: {}, webhooks: {}, webhookSecrets: {},
    webhookDeliveries: {}, environmentHistory: {}, serviceHistory: {}, backups: {}, receiverValidations: [],
    logs: {}, operations: {}, auditEvents: {}, auditDroppedThrough: null,
  };
}

/**
 * The helm repositories of a fresh organization: public HTTPS chart repositories, so that a helm
 * service can be created (its `source.helm_repository.repository` is the id of one of these).
 * Also given to a `--data` file written before the emulator had helm repositories.
 */
export function defaultHelmRepositories(deps: SeedDeps): Record<string, ApiRecord> {
  const now = deps.nowIso();
  const out: Record<string, ApiRecord> = {};
  for (const [name, url, description] of [
    ['bitnami', 'https://charts.bitnami.com/bitnami', 'Bitnami charts'],
    ['prometheus-community', 'https://prometheus-community.github.io/helm-charts', 'Prometheus community charts'],
  ]) {
    const id = deps.newId();
    out[id] = { id, created_at: now, updated_at: now, name, kind: 'HTTPS', description, url, skip_tls_verification: false, config: {} };
  }
  return out;
}

/** Merges a `--seed` fixture over the default state; throws a readable error when it is malformed. */
export function mergeSeed(base: EmulatorState, fixture: unknown, source: string): EmulatorState {
  if (!fixture || typeof fixture !== 'object' || Array.isArray(fixture)) {
    throw new Error(`seed ${source}: expected a JSON object with state collections (projects, environments, ...)`);
  }
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(fixture as Record<string, unknown>)) {
    if (!(key in base)) {
      throw new Error(`seed ${source}: unknown key '${key}' (allowed: ${Object.keys(base).join(', ')})`);
    }
    const expected = Array.isArray((base as any)[key]) ? 'array' : typeof (base as any)[key];
    const actual = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
    // A key whose default is null (auditDroppedThrough) takes a string or null.
    const nullable = (base as any)[key] === null && (value === null || typeof value === 'string');
    if (!nullable && expected !== actual) throw new Error(`seed ${source}: '${key}' must be an ${expected}, got ${actual}`);
    out[key] = value;
  }
  const state = out as unknown as EmulatorState;
  checkSeedRecords(state, source);
  // Tokens must belong to the (possibly replaced) organization.
  if (!('tokens' in (fixture as object))) state.tokens = state.tokens.map((t) => ({ ...t, organization_id: state.organization.id }));
  return state;
}

/** The start-up line's `tokens`: one API token per scope, and `CONSOLE`, the console user's JWT. */
export type StartupTokens = Record<TokenScope | 'CONSOLE', string>;

export function tokensByScope(state: EmulatorState): StartupTokens {
  const out = {} as StartupTokens;
  for (const scope of TOKEN_SCOPES) {
    const t = state.tokens.find((x) => x.scope === scope && !isConsoleToken(x));
    if (t) out[scope] = t.token;
  }
  const console = state.tokens.find(isConsoleToken);
  if (console) out.CONSOLE = console.token;
  return out;
}

/**
 * Every organization has a console user: a `--data` file or a `--seed` written before the audit
 * log (or whose tokens list has none) gets one, so the start-up line always has `tokens.CONSOLE`.
 */
export function withConsoleToken(state: EmulatorState): EmulatorState {
  if (state.tokens.some(isConsoleToken)) return state;
  state.tokens = [...state.tokens, consoleTokenRecord(state.organization.id)];
  return state;
}

/** The links route code relies on; a fixture missing one is refused at start-up, not with a 500 later. */
const REQUIRED_LINKS: Record<string, string[]> = {
  projects: ['name'],
  environments: ['name', 'project.id', 'cluster_id'],
  services: ['name', 'environment.id', 'service_type'],
  deploymentStages: ['name', 'environment.id', 'deployment_order', 'services'],
  clusters: ['name', 'cloud_provider', 'region'],
  containerRegistries: ['name'],
  helmRepositories: ['name', 'kind', 'url'],
  annotationsGroups: ['name'],
  labelsGroups: ['name'],
  alertReceivers: ['name', 'type'],
  alertRules: ['name', 'alert_receiver_ids', 'target.target_type', 'target.target_id'],
  webhooks: ['target_url', 'events'],
};

function checkSeedRecords(state: EmulatorState, source: string): void {
  if (!state.organization || typeof state.organization.id !== 'string') throw new Error(`seed ${source}: 'organization' needs an id`);
  for (const [collection, fields] of Object.entries(REQUIRED_LINKS)) {
    const records = (state as unknown as Record<string, Record<string, unknown>>)[collection];
    for (const [key, rec] of Object.entries(records)) {
      if (!rec || typeof rec !== 'object') throw new Error(`seed ${source}: ${collection}.${key} must be an object`);
      const r = rec as Record<string, unknown>;
      if (r.id !== key) throw new Error(`seed ${source}: ${collection}.${key} must have "id": "${key}" (records are keyed by id)`);
      for (const f of fields) {
        const v = f.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), r);
        if (v === undefined || v === null) throw new Error(`seed ${source}: ${collection}.${key} lacks '${f}'`);
      }
    }
  }
  if (!state.tokens.every((t) => t && typeof t.token === 'string' && ['ADMIN', 'WRITE', 'DEPLOY', 'READ'].includes(t.scope))) {
    throw new Error(`seed ${source}: every token needs a 'token' string and a 'scope' of ADMIN, WRITE, DEPLOY or READ`);
  }
  if (!state.tokens.every((t) => t.origin === undefined || t.origin === 'API' || t.origin === 'CONSOLE')) {
    throw new Error(`seed ${source}: a token's 'origin' is API or CONSOLE`);
  }
}
