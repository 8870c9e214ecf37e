/**
 * Desired attrs of services, in the API's request-body shapes (see ./attrs.ts): the fields every
 * service has here, each kind's own in its descriptor (src/model/kinds, `service.fromManifest`).
 */
import type { ApplicationSpec, ContainerSpec, GitRepositorySpec, ServiceSpec } from '../manifest/types.js';
import { serviceMappings } from '../model/kinds/index.js';
import type { Address, DesiredResource } from '../model/resource.js';
import { addressOf } from '../model/resource.js';
import { desc, normalizeGitRepository, normalizeHealthchecks, normalizePorts, normalizeStorage, num, put, sortedSet } from './attrs.js';
import type { GraphBuilder } from './builder.js';

export interface ServiceBuild {
  attrs: Record<string, unknown>;
  dependsOn: Address[];
  sensitiveFields: string[];
  deploy?: DesiredResource['deploy'];
  /** `deploy: false` in the manifest (DesiredResource.noDeploy). */
  noDeploy?: true;
  cloneFrom?: Address;
}

export function serviceAttrs(s: ServiceSpec, env: Address, b: GraphBuilder): ServiceBuild {
  const out: ServiceBuild = { attrs: { name: s.name }, dependsOn: [], sensitiveFields: [] };
  const a = out.attrs;
  if (s.description !== undefined) a.description = desc(s.description);
  put(a, 'icon_uri', s.icon_uri);
  if (s.deploy === false) out.noDeploy = true;
  if (s.annotation_groups) {
    a.annotations_groups = sortedSet(s.annotation_groups);
    for (const g of a.annotations_groups as string[]) depend(b, out, addressOf('annotations_group', g));
  }
  if (s.label_groups) {
    a.labels_groups = sortedSet(s.label_groups);
    for (const g of a.labels_groups as string[]) depend(b, out, addressOf('labels_group', g));
  }
  // The kind's own fields: its descriptor's mapping (src/model/kinds).
  serviceMappings(s.type).fromManifest(s as never, out, env, b);
  return out;
}

/** Depend on a declared resource (undeclared groups are checked by the manifest validator). */
function depend(b: GraphBuilder, out: ServiceBuild, address: Address): void {
  if (b.resources.has(address)) out.dependsOn.push(address);
}

/** A manifest git repository in attrs shape. */
export function git(g: GitRepositorySpec): Record<string, unknown> {
  return normalizeGitRepository(g as unknown as Record<string, unknown>);
}

/** The compute fields of an application or a container (cpu, instances, ports, probes, storage...). */
export function compute(s: ApplicationSpec | ContainerSpec, a: Record<string, unknown>): void {
  put(a, 'cpu', num(s.cpu));
  put(a, 'memory', num(s.memory));
  put(a, 'min_running_instances', num(s.min_running_instances));
  put(a, 'max_running_instances', num(s.max_running_instances));
  if (s.ports) a.ports = normalizePorts(s.ports as unknown as Array<Record<string, unknown>>);
  // Declaring healthchecks owns both probes (one left out is none); without the key the live ones stay.
  if (s.healthchecks) a.healthchecks = normalizeHealthchecks(s.healthchecks);
  if (s.storage) a.storage = normalizeStorage(s.storage as unknown as Array<Record<string, unknown>>);
  put(a, 'arguments', s.arguments ? [...s.arguments] : undefined);
  put(a, 'entrypoint', s.entrypoint);
  put(a, 'auto_deploy', s.auto_deploy);
}

/** Fingerprint field names of the secret tf_vars: `tf_vars.KEY`. */
export function secretTfVarFields(a: Record<string, unknown>): string[] {
  const vs = a.terraform_variables_source as { tf_vars?: Array<{ key: string; secret: boolean }> } | undefined;
  return (vs?.tf_vars ?? []).filter((t) => t.secret).map((t) => `tf_vars.${t.key}`);
}
