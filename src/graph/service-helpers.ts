/**
 * What a service's manifest mapping builds (ServiceBuild) and the attrs helpers the kind
 * descriptors (src/model/kinds) share, in a module that does not import the kind registry: the
 * registry imports the descriptors, and ./services.ts imports the registry (no import cycle).
 */
import type { ApplicationSpec, ContainerSpec, GitRepositorySpec } from '../manifest/types.js';
import type { Address, DesiredResource } from '../model/resource.js';
import { normalizeGitRepository, normalizeHealthchecks, normalizePorts, normalizeStorage, num, put } from './attrs.js';

export interface ServiceBuild {
  attrs: Record<string, unknown>;
  dependsOn: Address[];
  sensitiveFields: string[];
  deploy?: DesiredResource['deploy'];
  /** `deploy: false` in the manifest (DesiredResource.noDeploy). */
  noDeploy?: true;
  cloneFrom?: Address;
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
