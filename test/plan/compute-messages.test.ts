/** The words of computePlan's diagnostics: what is wrong, with what, and what to do. */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { computePlan } from '../../src/plan/compute.js';
import { PROD, KEY, apiRecords, fullManifest, liveFrom } from './fixtures.js';

describe('computePlan diagnostics, word for word', () => {
  it('names a declared cluster that does not exist and lists the known ones', () => {
    const m = fullManifest();
    m.clusters = [{ name: 'prod-cluster' }];
    m.projects![0]!.environments![0]!.cluster = 'prod-cluster';
    const plan = computePlan(buildGraph(m).graph, liveFrom(apiRecords()), { fingerprintKey: KEY });
    expect(plan.diagnostics.map((d) => [d.severity, d.code, d.summary, d.detail, d.address])).toEqual([
      ['error', 'live.not-found', 'cluster "prod-cluster" does not exist and cannot be created through the API', 'Known clusters: production-cluster, staging-cluster.', 'cluster.prod-cluster'],
    ]);
    expect(plan.changes.find((c) => c.address === 'cluster.prod-cluster')!.actions).toEqual(['no-op']);
    expect(plan.applyable).toBe(false);
  });

  it('explains why creating a service whose name is taken by another kind fails', () => {
    const m = fullManifest();
    m.projects![0]!.environments![0]!.services![1] = { type: 'application', name: 'web', git_repository: { url: 'https://github.com/acme/web.git' } };
    const plan = computePlan(buildGraph(m).graph, liveFrom(apiRecords()), { fingerprintKey: KEY });
    expect(plan.diagnostics.map((d) => [d.summary, d.detail])).toEqual([
      [
        `${PROD}/container.web exists live as a container; the manifest declares an application with the same name`,
        `The API refuses two services with one name in an environment, so creating ${PROD}/application.web fails while the container exists. Delete it first (or opt into pruning services for this environment and apply twice).`,
      ],
    ]);
  });

  it('requires an auth_password to create an EMAIL receiver, and only for EMAIL', () => {
    const m = fullManifest();
    m.alert_receivers!.push({ name: 'mail', type: 'EMAIL', description: 'Mail', send_resolved: true, to: 'ops@example.com', from: 'alerts@example.com', smtp_host: 'smtp.example.com', smtp_port: 587, auth_username: 'alerts' } as never);
    const plan = computePlan(buildGraph(m).graph, liveFrom(apiRecords()), { fingerprintKey: KEY });
    expect(plan.diagnostics.map((d) => [d.severity, d.code, d.summary, d.address])).toEqual([
      ['error', 'plan.receiver-password', 'alert receiver "mail" (EMAIL) does not exist yet and has no auth_password: the API requires one to create an EMAIL receiver', 'alert_receiver.mail'],
    ]);
    const slack = fullManifest();
    slack.alert_receivers!.push({ name: 'pager', type: 'SLACK', description: 'Pager', send_resolved: true, webhook_url: slack.alert_receivers![0]!.webhook_url });
    expect(computePlan(buildGraph(slack).graph, liveFrom(apiRecords()), { fingerprintKey: KEY }).diagnostics).toEqual([]);
  });
});
