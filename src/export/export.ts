/**
 * The export pipeline: read the live organization (./read.ts), normalise it with the plan's own
 * normaliser (src/live), and map it back to a manifest (./to-manifest.ts).
 */
import type { ApiPort } from '../live/api-port.js';
import { liveStateFromRecords } from '../live/fetch.js';
import type { LiveRecords } from '../live/read.js';
import type { DesiredGraph, DesiredResource } from '../model/resource.js';
import { readOrganization, type ExportScope } from './read.js';
import { exportManifest, type ExportedManifest, type ExportResult } from './to-manifest.js';

export { ExportScopeError, type ExportScope } from './read.js';

/**
 * liveStateFromRecords normalises the organization record only when the graph declares it; an
 * export always wants it, so it is given a graph that does.
 */
const WANTS_ORGANIZATION: DesiredGraph = {
  resources: new Map([['organization', { address: 'organization', kind: 'organization', name: 'organization', attrs: {}, dependsOn: [] } satisfies DesiredResource]]),
  order: ['organization'],
};

/**
 * `through` reads the records another way than straight from the API (the refresh cache of
 * `--cache`): it is given the reader to run.
 */
export async function exportOrganization(
  api: ApiPort,
  scope: ExportScope = {},
  through?: (read: (port: ApiPort) => Promise<LiveRecords>) => Promise<LiveRecords>,
): Promise<ExportResult & { organizationName: string; requestCount: number }> {
  const before = api.requestCount;
  const read = (port: ApiPort) => readOrganization(port, scope);
  const records = await (through ? through(read) : read(api));
  const live = liveStateFromRecords(records, WANTS_ORGANIZATION);
  const partial = scope.project !== undefined || scope.environment !== undefined;
  const result = exportManifest(live, { partial });
  // The export says how much of the organization it owns (src/plan/scope.ts): a full export all of
  // it, so that a project or webhook added by hand later is drift; a partial one only what it
  // declares, so that the other teams' projects and groups of a shared organization are not.
  const { version, ...rest } = result.manifest;
  const manifest: ExportedManifest = { version, scope: partial ? 'declared' : 'organization', ...rest };
  return { ...result, manifest, organizationName: String(records.organization.name ?? ''), requestCount: api.requestCount - before };
}
