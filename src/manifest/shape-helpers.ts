/**
 * Shape checks the kind descriptors (src/model/kinds, `checkShape`) share, in a module that does
 * not import the kind registry: the registry imports the descriptors, and ./shape-checks.ts
 * imports the registry (no import cycle).
 */
import { error } from './codes.js';
import type { ApplicationSpec, ContainerSpec } from './types.js';
import type { ShapeCheck } from '../model/kinds/descriptor.js';

export const list = (keys: string[]) => keys.map((k) => `\`${k}\``).join(', ');

/** The checks of an application's or a container's compute settings: instances, probes, volumes. */
export function checkComputeShape(s: ApplicationSpec | ContainerSpec, c: ShapeCheck): void {
  const { what, address: sa, at, exactlyOne } = c;
  if (s.min_running_instances !== undefined && s.max_running_instances !== undefined && s.min_running_instances > s.max_running_instances) {
    c.report(error('manifest.range', `${what}: min_running_instances (${s.min_running_instances}) is above max_running_instances (${s.max_running_instances})`, { range: at(s, 'min_running_instances'), address: sa }));
  }
  for (const k of ['readiness_probe', 'liveness_probe'] as const) {
    const probe = s.healthchecks?.[k];
    if (probe && typeof probe.type === 'object' && probe.type !== null) exactlyOne(probe.type, ['tcp', 'http', 'exec', 'grpc'], `the type of the ${k} of ${what}`, sa);
  }
  const seen = new Set<string>();
  for (const st of s.storage ?? []) {
    if (typeof st.mount_point !== 'string') continue;
    if (seen.has(st.mount_point)) c.report(error('manifest.duplicate', `${what}: two storage volumes are mounted at \`${st.mount_point}\``, { detail: 'A volume is identified by its mount_point: give each one its own.', range: at(st, 'mount_point'), address: sa }));
    seen.add(st.mount_point);
  }
}
