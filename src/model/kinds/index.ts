/**
 * The registry of resource kinds: every kind driftless knows, and its descriptor (./descriptor.ts).
 * Adding a kind: docs/adding-a-kind.md. The tables below are typed `{ [K in Kind]: ... }`, so a
 * kind added to the lists without its descriptor (or the reverse) does not compile, and every
 * stage that decides per kind derives its table from here.
 *
 * Read lazily (descriptors()): nothing here runs while the modules are being loaded. A descriptor
 * imports the helpers its mappings use from modules that do not import this registry (the stages
 * do): no import cycle (test/repo/import-cycles.test.ts).
 */
import type { OrgListName } from '../../api/routes.js';
import type { AuditTarget, KindDescriptor, ServiceKindDescriptor, ServiceMappings } from './descriptor.js';
import { organizationKind } from './organization.js';
import { clusterKind } from './cluster.js';
import { containerRegistryKind } from './container-registry.js';
import { helmRepositoryKind } from './helm-repository.js';
import { annotationsGroupKind } from './annotations-group.js';
import { labelsGroupKind } from './labels-group.js';
import { alertReceiverKind } from './alert-receiver.js';
import { alertRuleKind } from './alert-rule.js';
import { webhookKind } from './webhook.js';
import { projectKind } from './project.js';
import { environmentKind } from './environment.js';
import { deploymentStageKind } from './deployment-stage.js';
import { applicationKind } from './application.js';
import { containerKind } from './container.js';
import { databaseKind } from './database.js';
import { jobKind } from './job.js';
import { helmKind } from './helm.js';
import { terraformKind } from './terraform.js';
import { variableKind } from './variable.js';

import { RESOURCE_KINDS, SERVICE_KINDS, type ResourceKind, type ServiceKind } from './names.js';
export { RESOURCE_KINDS, SERVICE_KINDS, isServiceKind, isResourceKind, type ResourceKind, type ServiceKind } from './names.js';

/** Every kind's descriptor; a service kind's has its mappings (a kind missing here does not compile). */
type DescriptorTable = { readonly [K in ResourceKind]: K extends ServiceKind ? ServiceKindDescriptor<K> : KindDescriptor<K> };

let table: DescriptorTable | undefined;

/** Every kind's descriptor. */
export function descriptors(): DescriptorTable {
  return (table ??= {
    organization: organizationKind,
    cluster: clusterKind,
    container_registry: containerRegistryKind,
    helm_repository: helmRepositoryKind,
    annotations_group: annotationsGroupKind,
    labels_group: labelsGroupKind,
    alert_receiver: alertReceiverKind,
    alert_rule: alertRuleKind,
    webhook: webhookKind,
    project: projectKind,
    environment: environmentKind,
    deployment_stage: deploymentStageKind,
    application: applicationKind,
    container: containerKind,
    database: databaseKind,
    job: jobKind,
    helm: helmKind,
    terraform: terraformKind,
    variable: variableKind,
  });
}

export function kindDescriptor<K extends ResourceKind>(kind: K): KindDescriptor<K> {
  return descriptors()[kind] as KindDescriptor<K>;
}

/** A service kind's mappings (src/model/kinds/descriptor.ts, ServiceMappings). */
export function serviceMappings(kind: ServiceKind): ServiceMappings {
  return (descriptors()[kind] as unknown as ServiceKindDescriptor).service;
}

/**
 * A table of one stage, derived from the descriptors once, on first use: `derived(f)` returns a
 * function that answers f(descriptors()) memoised.
 */
export function derived<T>(build: (all: DescriptorTable) => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      value = build(descriptors());
      built = true;
    }
    return value as T;
  };
}

/** The kinds whose descriptor satisfies `test`, in registry order. */
export function kindsWhere(test: (d: KindDescriptor) => boolean): ResourceKind[] {
  return RESOURCE_KINDS.filter((k) => test(descriptors()[k] as KindDescriptor));
}

/** The kinds whose objects name objects of \`kind\` (their descriptors' refersTo). */
export function kindsReferringTo(kind: ResourceKind): ResourceKind[] {
  return kindsWhere((d) => d.refersTo?.includes(kind) === true);
}

/** Kinds other objects name, whose live objects apply resolves names through (descriptor.ts, namedByOthers). */
export const kindsNamedByOthers = derived((all) => new Set<ResourceKind>(RESOURCE_KINDS.filter((k) => all[k].namedByOthers === true)));

/** Kinds whose names the API compares case-insensitively. */
/** The organization-level list holding the objects of `kind` (its descriptor's orgList). */
export function orgListOf(kind: ResourceKind): OrgListName | undefined {
  return descriptors()[kind].orgList;
}

/** Kinds whose objects the API cannot create or delete (the descriptors' `readOnly`). */
export const readOnlyKinds = derived((all) => new Set<ResourceKind>(RESOURCE_KINDS.filter((k) => all[k].readOnly === true)));
export const caseInsensitiveKinds = derived((all) => new Set<ResourceKind>(RESOURCE_KINDS.filter((k) => all[k].caseInsensitiveName)));

/** The service kind of an API `service_type` (upper case, as the API writes it). */
export const serviceKindOfApiType = derived((all) => new Map<string, ServiceKind>(SERVICE_KINDS.map((k) => [all[k].apiType!, k])));

/** The API's variable scope of the variables a resource of this kind holds (its apiType; undefined: it holds none). */
export function variableScopeOf(kind: ResourceKind): string | undefined {
  const d = kindDescriptor(kind);
  return d.holdsVariables ? d.apiType : undefined;
}

/** Whether objects of this kind hold variables (and, a service, see its environment's and project's). */
export function holdsVariables(kind: ResourceKind): boolean {
  return kindDescriptor(kind).holdsVariables === true;
}

/** How the audit log names an object of this kind (descriptor.ts, auditedAs); undefined: it has no audit target. */
export function auditTargetOf(kind: ResourceKind): AuditTarget | undefined {
  const { apiType, auditedAs } = kindDescriptor(kind);
  if (typeof auditedAs === 'object') return { subTypes: auditedAs.subTypes };
  if (apiType === undefined) return undefined;
  return auditedAs === 'subTarget' ? { subTypes: [apiType] } : { type: apiType };
}

/** Whether deleting or replacing an object of this kind destroys data (descriptor.ts, holdsData). */
export function holdsData(kind: ResourceKind): boolean {
  return kindDescriptor(kind).holdsData === true;
}

/** Service kinds that hold variables (every service but a database). */
export const variableHoldingServiceKinds = derived((all) => SERVICE_KINDS.filter((k) => all[k].holdsVariables === true));

export type { KindDescriptor, AuditTarget, BuiltInName, CloneSource, ServiceKindDescriptor, ServiceMappings } from './descriptor.js';
