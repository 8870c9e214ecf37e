/**
 * The deployment history only attributes drift: a failed read leaves an item of unknown origin,
 * but a read refused by the --max-wait cap stops drift (exit 1 in the command), like any other read.
 */
import { describe, expect, it } from 'vitest';
import { servicesDeployedBefore } from '../../src/drift/history.js';
import { RateLimitWaitError } from '../../src/api/index.js';
import type { ApiPort } from '../../src/live/api-port.js';
import type { LiveResource, LiveState } from '../../src/model/resource.js';
import type { Plan } from '../../src/plan/types.js';

const ENV = 'project.p/environment.e';
const plan = { changes: [{ address: `${ENV}/application.api`, kind: 'application', name: 'api', actions: ['create'], parent: ENV }] } as unknown as Plan;
const live: LiveState = { organizationId: 'o', requestCount: 0, resources: new Map([[ENV, { id: 'env-1' } as unknown as LiveResource]]) };

function port(get: () => Promise<unknown>): ApiPort {
  return { get, post: get, put: get, delete: async () => undefined, requestCount: 0 } as unknown as ApiPort;
}

describe('servicesDeployedBefore', () => {
  it('reads the history and finds the service', async () => {
    const api = port(async () => ({ results: [{ stages: [{ services: [{ identifier: { name: 'API' } }] }] }] }));
    expect([...(await servicesDeployedBefore(api, plan, live))]).toEqual([`${ENV}/application.api`]);
  });

  it('a failed read leaves the origin unknown', async () => {
    const api = port(async () => {
      throw new Error('HTTP 500');
    });
    expect((await servicesDeployedBefore(api, plan, live)).size).toBe(0);
  });

  it('a read refused by the --max-wait cap is not swallowed', async () => {
    const capped = new RateLimitWaitError('GET', '/environment/env-1/deploymentHistoryV2', { waitMs: 600_000, maxWaitMs: 0, resetAt: 600_000, sent: 9 }, 0, 'UTC');
    const api = port(async () => {
      throw capped;
    });
    await expect(servicesDeployedBefore(api, plan, live)).rejects.toBe(capped);
  });

  it('reads no history for a service whose deletion the audit log already dates', async () => {
    let reads = 0;
    const api = port(async () => {
      reads++;
      return { results: [] };
    });
    expect((await servicesDeployedBefore(api, plan, live, (c) => c.address === `${ENV}/application.api`)).size).toBe(0);
    expect(reads).toBe(0);
    await servicesDeployedBefore(api, plan, live, () => false);
    expect(reads).toBe(1);
  });
});
