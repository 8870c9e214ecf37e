/**
 * The API's paths, built in one place: every path the reconciler requests (the writers, the live
 * reader, export, deploy, the refresh) comes from `routes`, with the paths of the seed (section
 * 4.2) and, where the seed is silent, of the real API.
 *
 * The refresh reads its cached request keys back with `listRouteOf`, the inverse of the list
 * routes below (and tested as such), so that a list the reader requests is a list the refresh
 * knows how to keep current: the two cannot drift apart.
 *
 * Ids are the API's own (UUIDs), encoded so that none can forge a path.
 */
import type { ServiceKind } from '../model/kinds/names.js';

const seg = (id: string): string => encodeURIComponent(id);

/** The organization-level lists driftless reads, by name, and the tail of their path. */
export const ORG_LISTS = {
  projects: 'project',
  clusters: 'cluster',
  clusterStatuses: 'cluster/status',
  containerRegistries: 'containerRegistry',
  helmRepositories: 'helmRepository',
  annotationsGroups: 'annotationsGroups',
  labelsGroups: 'labelsGroups',
  alertReceivers: 'alert-receivers',
  alertRules: 'alert-rules',
  webhooks: 'webhook',
} as const;
export type OrgListName = keyof typeof ORG_LISTS;
/** The path tail of an organization-level list (`cluster/status`). */
export type OrgListTail = (typeof ORG_LISTS)[OrgListName];

/** The lists read per environment. */
export const ENVIRONMENT_LISTS = ['services', 'statuses', 'deploymentStage'] as const;
export type EnvironmentListName = (typeof ENVIRONMENT_LISTS)[number];

/** Organization lists whose objects are written and deleted under the list's own path. */
type OrgOwnedList = 'annotationsGroups' | 'labelsGroups' | 'webhooks';

export const routes = {
  organization: (): string => '/organization',
  organizationItem: (org: string): string => `/organization/${seg(org)}`,
  orgList: (org: string, list: OrgListName): string => `/organization/${seg(org)}/${ORG_LISTS[list]}`,
  orgListItem: (org: string, list: OrgOwnedList, id: string): string => `/organization/${seg(org)}/${ORG_LISTS[list]}/${seg(id)}`,
  auditEvents: (org: string): string => `/organization/${seg(org)}/events`,
  /** The terraform variables a git repository declares (POST, changes nothing). */
  terraformVariablesParse: (org: string): string => `/organization/${seg(org)}/parseTerraformVariablesFromGitRepo`,
  awsManagedDatabaseInstanceTypes: (region: string, databaseType: string): string => `/aws/managedDatabase/instanceType/${seg(region)}/${seg(databaseType)}`,
  clusterUpgrade: (id: string): string => `/cluster/${seg(id)}/upgrade`,

  alertReceivers: (): string => '/alert-receivers',
  alertReceiverValidate: (): string => '/alert-receivers/validate',
  alertReceiverItem: (id: string): string => `/alert-receivers/${seg(id)}`,
  alertRules: (): string => '/alert-rules',
  alertRuleItem: (id: string): string => `/alert-rules/${seg(id)}`,

  projectItem: (id: string): string => `/project/${seg(id)}`,
  environments: (project: string): string => `/project/${seg(project)}/environment`,

  environmentItem: (id: string): string => `/environment/${seg(id)}`,
  environmentList: (env: string, list: EnvironmentListName): string => `/environment/${seg(env)}/${list}`,
  /** Creates a service of `kind` in the environment (its list is `environmentList(env, 'services')`). */
  environmentServices: (env: string, kind: ServiceKind): string => `/environment/${seg(env)}/${kind}`,
  environmentDeploy: (env: string): string => `/environment/${seg(env)}/service/deploy`,
  /** The public URLs of the environment's services (`driftless preview`). */
  environmentLinks: (env: string): string => `/environment/${seg(env)}/link`,
  environmentStatus: (env: string): string => `/environment/${seg(env)}/status`,
  environmentDeleteServices: (env: string): string => `/environment/${seg(env)}/service/delete`,
  deploymentHistory: (env: string): string => `/environment/${seg(env)}/deploymentHistoryV2`,

  serviceItem: (kind: ServiceKind, id: string): string => `/${kind}/${seg(id)}`,
  serviceLog: (kind: ServiceKind, id: string): string => `/${kind}/${seg(id)}/log`,
  serviceDeploy: (kind: ServiceKind, id: string): string => `/${kind}/${seg(id)}/deploy`,
  databaseClone: (id: string): string => `/database/${seg(id)}/clone`,
  databaseBackup: (id: string): string => `/database/${seg(id)}/backup`,

  stageItem: (id: string): string => `/deploymentStage/${seg(id)}`,
  stageMoveAfter: (id: string, after: string): string => `/deploymentStage/${seg(id)}/moveAfter/${seg(after)}`,
  stageService: (stage: string, service: string): string => `/deploymentStage/${seg(stage)}/service/${seg(service)}`,

  /** The unified variable list (query `parent_id`, `scope`) and create. */
  variables: (): string => '/variable',
  variableItem: (id: string): string => `/variable/${seg(id)}`,
  /** Creates a service's plain variables in one request (query `service_id`, `service_type`). */
  variableImport: (): string => '/variable/import',
  variableDerived: (target: string, type: 'alias' | 'override'): string => `/variable/${seg(target)}/${type}`,
} as const;

/** What a list request reads, and the id of the object whose list it is: `listRouteOf`'s answer. */
export type ListRoute =
  | { kind: 'organization' }
  | { kind: 'org-list'; org: string; list: string }
  | { kind: 'environments'; project: string }
  | { kind: 'env-list'; env: string; list: EnvironmentListName }
  | { kind: 'variables'; parent: string }
  | { kind: 'other' };

const ORG_LIST = /^\/organization\/([^/]+)\/(.+)$/;
const ENVIRONMENTS = /^\/project\/([^/]+)\/environment$/;
const ENV_LIST = new RegExp(`^/environment/([^/]+)/(${ENVIRONMENT_LISTS.join('|')})$`);

/**
 * The inverse of the list routes: which list `path?query` reads (`{kind: 'other'}` for anything
 * else). `org-list`'s `list` is the path tail (`cluster/status`), whatever it is, so that the
 * refresh can name a list it does not know.
 */
export function listRouteOf(path: string, query = ''): ListRoute {
  if (path === routes.organization()) return { kind: 'organization' };
  let m = ORG_LIST.exec(path);
  if (m) return { kind: 'org-list', org: decodeURIComponent(m[1]!), list: m[2]! };
  m = ENVIRONMENTS.exec(path);
  if (m) return { kind: 'environments', project: decodeURIComponent(m[1]!) };
  m = ENV_LIST.exec(path);
  if (m) return { kind: 'env-list', env: decodeURIComponent(m[1]!), list: m[2] as EnvironmentListName };
  if (path === routes.variables()) {
    const parent = new URLSearchParams(query).get('parent_id');
    if (parent) return { kind: 'variables', parent };
  }
  return { kind: 'other' };
}
