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

export function isServiceKind(k: string): k is ServiceKind {
  return (SERVICE_KINDS as readonly string[]).includes(k);
}

export function isResourceKind(k: string): k is ResourceKind {
  return (RESOURCE_KINDS as readonly string[]).includes(k);
}

/**
 * Kinds whose names the API compares case-insensitively (seed 2.4, 2.7, 2.8). Listed here, in the
 * leaf, because the resource model (src/model/resource.ts) folds addresses with it and must not
 * import the registry (the registry imports the descriptors, which import the model: an
 * import cycle). Each descriptor's `caseInsensitiveName` says the same; test/model/kind-names.test.ts
 * holds the two equal.
 */
export const CASE_INSENSITIVE_KINDS: readonly ResourceKind[] = [
  'organization',
  'annotations_group',
  'labels_group',
  'alert_receiver',
  'alert_rule',
  'project',
  'environment',
  'deployment_stage',
  ...SERVICE_KINDS,
];
