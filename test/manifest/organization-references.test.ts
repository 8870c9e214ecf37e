/**
 * checkOrganizationReferences: the one check of a manifest against the organization's names and
 * cluster maxima, shared by `validate --remote` and `plan`. Pure, over lists given to it.
 */
import { describe, expect, it } from 'vitest';
import { checkOrganizationReferences } from '../../src/manifest/references.js';
import type { Manifest, ServiceSpec } from '../../src/manifest/types.js';

const withServices = (cluster: string, services: ServiceSpec[]): Manifest => ({ version: 1, projects: [{ name: 'p', environments: [{ name: 'e', cluster, services }] }] });
const LIMITS = { clusters: ['small', 'big'], clusterLimits: { small: { maximum_cpu: 2000, maximum_memory: 4096 }, big: { maximum_cpu: 8000 } } };

describe('cluster maxima', () => {
  it('reports each cpu and memory above the maximum of the environment cluster, naming service, value and maximum', () => {
    const m = withServices('Small', [
      { type: 'application', name: 'api', git_repository: { url: 'https://x/a.git' }, cpu: 2001, memory: 4096 } as ServiceSpec,
      { type: 'container', name: 'web', registry: 'r', image_name: 'i', tag: '1', memory: 5000 } as ServiceSpec,
      { type: 'terraform', name: 'tf', git_repository: { url: 'https://x/t.git' }, job_resources: { cpu_milli: 2500, ram_mib: 100 } } as ServiceSpec,
      { type: 'database', name: 'managed', database_type: 'POSTGRESQL', version: '16', mode: 'MANAGED', cpu: 9999 } as ServiceSpec,
      { type: 'database', name: 'pg', database_type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', cpu: 2000 } as ServiceSpec,
    ]);
    expect(checkOrganizationReferences(m, LIMITS).map((d) => [d.code, d.address, d.summary])).toEqual([
      ['limit.cluster-maximum', 'project.p/environment.e/application.api', 'application `api`: cpu 2001 millicores is above the maximum_cpu 2000 of cluster `Small`'],
      ['limit.cluster-maximum', 'project.p/environment.e/container.web', 'container `web`: memory 5000 MB is above the maximum_memory 4096 of cluster `Small`'],
      ['limit.cluster-maximum', 'project.p/environment.e/terraform.tf', 'terraform `tf`: job_resources.cpu_milli 2500 millicores is above the maximum_cpu 2000 of cluster `Small`'],
    ]);
  });

  it('checks nothing it has no maximum for', () => {
    const m = withServices('big', [{ type: 'application', name: 'api', git_repository: { url: 'https://x/a.git' }, cpu: 8000, memory: 999999 } as ServiceSpec]);
    expect(checkOrganizationReferences(m, LIMITS)).toEqual([]);
    expect(checkOrganizationReferences(m, { clusters: ['big'] })).toEqual([]);
  });

  it('reports a cluster that does not exist, with the nearest name, and no maxima for it', () => {
    const m = withServices('smal', [{ type: 'application', name: 'api', git_repository: { url: 'https://x/a.git' }, cpu: 99999 } as ServiceSpec]);
    const d = checkOrganizationReferences(m, LIMITS);
    expect(d.map((x) => [x.code, x.summary, x.detail])).toEqual([['ref.unresolved', 'cluster `smal` does not exist in the organization', 'Did you mean `small`? Known: small, big.']]);
  });
});
