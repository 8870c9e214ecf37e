/**
 * Live records refer to other objects by name (a service to its groups, a stage to its services, an
 * alert rule to its target): after a rename, the live record still spells the old name until the
 * rename is applied. These translations spell it as the manifest does, so that a rename shows as
 * one change of the renamed object, never as a change of everything that refers to it. Pure.
 */
import type { Address, DesiredGraph, LiveState } from '../model/resource.js';
import { addressOf, isServiceKind, matchKey } from '../model/resource.js';
import type { DesiredResource } from '../model/resource.js';

export interface RenamedReferences {
  /** Lower-cased old name -> new name. */
  annotations_group: Map<string, string>;
  labels_group: Map<string, string>;
  project: Map<string, string>;
  /** `matchKey(desired parent address) NUL lower-cased old name` -> new name. */
  environment: Map<string, string>;
  /** `matchKey(desired environment address) NUL lower-cased old name` -> new name. */
  services: Map<string, string>;
  /** `matchKey(desired scope address) NUL old key` (keys are case-sensitive) -> new key. */
  variables: Map<string, string>;
}

export function renamedReferences(graph: DesiredGraph, live: LiveState, renamed: Map<Address, Address>): RenamedReferences {
  const out: RenamedReferences = { annotations_group: new Map(), labels_group: new Map(), project: new Map(), environment: new Map(), services: new Map(), variables: new Map() };
  for (const [desired, liveAddress] of renamed) {
    const d = graph.resources.get(desired);
    const l = live.resources.get(liveAddress);
    if (!d || !l) continue;
    const old = l.name.toLowerCase();
    if (d.kind === 'annotations_group' || d.kind === 'labels_group' || d.kind === 'project') out[d.kind].set(old, d.name);
    else if (d.kind === 'environment' && d.parent) out.environment.set(`${matchKey(d.parent)}\u0000${old}`, d.name);
    else if (isServiceKind(d.kind) && d.parent) out.services.set(`${matchKey(d.parent)}\u0000${old}`, d.name);
    else if (d.kind === 'variable' && d.parent) out.variables.set(`${matchKey(d.parent)}\u0000${l.name}`, d.name);
  }
  return out;
}

const GROUP_FIELDS: ReadonlyArray<[string, 'annotations_group' | 'labels_group']> = [
  ['annotations_groups', 'annotations_group'],
  ['labels_groups', 'labels_group'],
];

/** Live attrs of `d` with the names of renamed objects it refers to spelled as the manifest does. */
export function withRenamedReferences(d: DesiredResource, attrs: Record<string, unknown>, refs: RenamedReferences): Record<string, unknown> {
  let out = attrs;
  for (const [field, kind] of GROUP_FIELDS) {
    const names = attrs[field];
    if (!Array.isArray(names) || refs[kind].size === 0) continue;
    const spelled = names.map((n) => (typeof n === 'string' ? refs[kind].get(n.toLowerCase()) ?? n : n));
    out = { ...out, [field]: [...spelled].sort() };
  }
  // An alias names the key it points to; the live alias shows the old key until the rename is applied.
  if (d.kind === 'variable' && typeof attrs.aliased_key === 'string' && refs.variables.size > 0) {
    const segs = d.address.split('/');
    const scope = attrs.aliased_scope === 'PROJECT' ? segs[0] : attrs.aliased_scope === 'ENVIRONMENT' ? segs.slice(0, 2).join('/') : undefined;
    const key = scope === undefined ? undefined : refs.variables.get(`${matchKey(scope)}\u0000${attrs.aliased_key}`);
    if (key !== undefined) out = { ...out, aliased_key: key };
  }
  // An alias of a built-in names its service, renamed in place (same id, same key) by a `moved` entry.
  if (d.kind === 'variable' && typeof attrs.aliased_service === 'string' && refs.services.size > 0) {
    const env = d.address.split('/').slice(0, 2).join('/');
    const name = refs.services.get(`${matchKey(env)}\u0000${attrs.aliased_service.toLowerCase()}`);
    if (name !== undefined) out = { ...out, aliased_service: name };
  }
  const target = attrs.target as Record<string, unknown> | undefined;
  if (d.kind === 'alert_rule' && target && typeof target.project === 'string' && typeof target.environment === 'string') {
    const project = refs.project.get(target.project.toLowerCase()) ?? target.project;
    const projectAddress = addressOf('project', project);
    const environment = refs.environment.get(`${matchKey(projectAddress)}\u0000${target.environment.toLowerCase()}`) ?? target.environment;
    const t: Record<string, unknown> = { ...target, project, environment };
    if (typeof target.service === 'string') {
      const envAddress = addressOf('environment', environment, projectAddress);
      t.service = refs.services.get(`${matchKey(envAddress)}\u0000${target.service.toLowerCase()}`) ?? target.service;
    }
    out = { ...out, target: t };
  }
  return out;
}
