/**
 * The names of the kinds, in a leaf module (no imports): the manifest's types and the registry
 * (./index.ts) both read them while modules are being loaded. A kind named here without a
 * descriptor in the registry's table (or the reverse) does not compile.
 */
/** Service kinds, in the order the API's documents list them (seed 1: "Service kinds are ..."). */
export const SERVICE_KINDS = ['application', 'container', 'database', 'job', 'helm', 'terraform'] as const;
export type ServiceKind = (typeof SERVICE_KINDS)[number];

/** Every kind, from the top of the hierarchy down (organization-level objects, projects, ..., variables). */
export const RESOURCE_KINDS = [
  'organization',
  'cluster',
  'container_registry',
  'helm_repository',
  'annotations_group',
  'labels_group',
  'alert_receiver',
  'alert_rule',
  'webhook',
  'project',
  'environment',
  'deployment_stage',
  ...SERVICE_KINDS,
  'variable',
] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];
