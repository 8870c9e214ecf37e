import { describe, expect, it } from 'vitest';
import { CLOCK_SKEW_MS, DeployFailedError, deployRequestBody, deployStage, nextPollDelay, ourHistoryEntry, type HistoryEntrySummary, type StageDeploy } from '../../src/apply/deploy.js';
import type { ApplyEvent } from '../../src/apply/events.js';
import { FakeApi, HttpError, virtualTiming } from './fake-api.js';

const ENV = 'env-1';
const stage: StageDeploy = {
  environmentId: ENV,
  environmentAddress: 'project.shop/environment.prod',
  stageName: 'backend',
  services: [
    { address: 'project.shop/environment.prod/application.api', id: 'app-1', kind: 'application', git_commit_id: 'abc123' },
    { address: 'project.shop/environment.prod/container.web', id: 'ctr-1', kind: 'container', image_tag: '1.2.3' },
  ],
};

/** Statuses that walk through the given state sequences, one step per poll. */
function statusApi(sequences: Record<string, string[]>, requestId = 'req-1') {
  let poll = 0;
  const api = new FakeApi()
    .on('POST', '/environment/:id/service/deploy', () => ({ id: ENV, deployment_request_id: requestId }))
    .on('GET', '/environment/:id/statuses', () => {
      const at = poll++;
      const status = (id: string) => {
        const seq = sequences[id]!;
        return { id, state: seq[Math.min(at, seq.length - 1)], deployment_request_id: requestId };
      };
      return {
        environment: { id: ENV, state: 'DEPLOYING' },
        applications: 'app-1' in sequences ? [status('app-1')] : [],
        containers: 'ctr-1' in sequences ? [status('ctr-1')] : [],
        databases: [],
        jobs: [],
        helms: [],
        terraforms: [],
      };
    })
    .on('GET', '/:kind/:id/log', ({ params }) => [
      { message: `${params.id} starting` },
      { message: `${params.id} panic: boom` },
    ]);
  return api;
}

const opts = (timing: { now(): number }, extra: Partial<Parameters<typeof deployStage>[2]> = {}) => ({
  deadline: timing.now() + 60_000,
  startedAt: timing.now(),
  pollIntervalMs: 1000,
  maxPollIntervalMs: 4000,
  logLines: 5,
  ...extra,
});

describe('deployRequestBody', () => {
  it('puts each service in its kind batch with its pinned commit or tag', () => {
    expect(
      deployRequestBody([
        ...stage.services,
        { address: 'd', id: 'db-1', kind: 'database' },
        { address: 'j', id: 'job-1', kind: 'job', image_tag: 't', git_commit_id: 'c' },
      ]),
    ).toEqual({
      applications: [{ application_id: 'app-1', git_commit_id: 'abc123' }],
      containers: [{ id: 'ctr-1', image_tag: '1.2.3' }],
      databases: ['db-1'],
      // a job deploy takes an image tag or a commit, never both
      jobs: [{ id: 'job-1', image_tag: 't' }],
      helms: [],
      terraforms: [],
    });
  });
});

describe('nextPollDelay', () => {
  it('waits a tenth of the time already spent deploying, within the bounds', () => {
    expect(nextPollDelay(0, 500, 10_000)).toBe(500);
    expect(nextPollDelay(4_000, 500, 10_000)).toBe(500);
    expect(nextPollDelay(30_000, 500, 10_000)).toBe(3_000);
    expect(nextPollDelay(600_000, 500, 10_000)).toBe(10_000);
  });
});

describe('deployStage', () => {
  it('sends one batch request, polls the environment once per poll, and reports each state change', async () => {
    const api = statusApi({
      'app-1': ['DEPLOYMENT_QUEUED', 'DEPLOYING', 'DEPLOYING', 'DEPLOYED'],
      'ctr-1': ['DEPLOYMENT_QUEUED', 'DEPLOYED'],
    });
    const timing = virtualTiming();
    const events: ApplyEvent[] = [];
    await deployStage(stage, { api, timing, onEvent: (e) => events.push(e) }, opts(timing));
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /environment/env-1/service/deploy',
      'GET /environment/env-1/statuses',
      'GET /environment/env-1/statuses',
      'GET /environment/env-1/statuses',
      'GET /environment/env-1/statuses',
    ]);
    expect(api.calls[0]!.body).toMatchObject({
      applications: [{ application_id: 'app-1', git_commit_id: 'abc123' }],
      containers: [{ id: 'ctr-1', image_tag: '1.2.3' }],
    });
    expect(timing.sleeps).toEqual([1000, 1000, 1000, 1000]);
    const progress = events.flatMap((e) => (e.type === 'apply_progress' ? [`${e.address.split('/').pop()} ${e.state}`] : []));
    expect(progress).toEqual([
      'application.api DEPLOYMENT_QUEUED',
      'container.web DEPLOYMENT_QUEUED',
      'application.api DEPLOYING',
      'container.web DEPLOYED',
      'application.api DEPLOYED',
    ]);
  });

  it('fails with the state and the last log lines when a service ends in an *_ERROR state', async () => {
    const api = statusApi({ 'app-1': ['DEPLOYING', 'BUILD_ERROR'], 'ctr-1': ['DEPLOYED'] });
    const timing = virtualTiming();
    const err = await deployStage(stage, { api, timing, onEvent: () => {} }, opts(timing)).catch((e) => e);
    expect(err).toBeInstanceOf(DeployFailedError);
    const f = (err as DeployFailedError).failures;
    expect(f).toEqual([
      {
        address: 'project.shop/environment.prod/application.api',
        state: 'BUILD_ERROR',
        reason: 'deployment ended in BUILD_ERROR',
        logs: ['app-1 starting', 'app-1 panic: boom'],
      },
    ]);
  });

  it('fails at the deadline, naming the last state seen, instead of waiting forever', async () => {
    const api = statusApi({ 'app-1': ['DEPLOYING'], 'ctr-1': ['DEPLOYED'] });
    const timing = virtualTiming();
    const err = (await deployStage(stage, { api, timing, onEvent: () => {} }, opts(timing, { deadline: 10_000 })).catch(
      (e) => e,
    )) as DeployFailedError;
    expect(err).toBeInstanceOf(DeployFailedError);
    expect(err.failures.map((x) => [x.address.split('/').pop(), x.reason])).toEqual([
      ['application.api', 'timed out waiting for the deployment (last state DEPLOYING)'],
    ]);
    expect(timing.now()).toBe(10_000);
  });

  it('does not mistake the previous deployment result for the new one', async () => {
    let poll = 0;
    const api = new FakeApi()
      .on('POST', '/environment/:id/service/deploy', () => ({ deployment_request_id: 'new' }))
      .on('GET', '/environment/:id/statuses', () => ({
        applications: [poll++ === 0 ? { id: 'app-1', state: 'DEPLOYED', deployment_request_id: 'old' } : { id: 'app-1', state: 'DEPLOYED', deployment_request_id: 'new' }],
      }));
    const timing = virtualTiming();
    const events: ApplyEvent[] = [];
    await deployStage({ ...stage, services: [stage.services[0]!] }, { api, timing, onEvent: (e) => events.push(e) }, opts(timing));
    expect(events.map((e) => (e.type === 'apply_progress' ? e.state : e.type))).toEqual(['DEPLOYMENT_QUEUED', 'DEPLOYED']);
  });

  it('takes the outcome of its own request from the deployment history once another request is on the service, and notes it', async () => {
    let poll = 0;
    const api = new FakeApi()
      .on('POST', '/environment/:id/service/deploy', () => ({ deployment_request_id: 'mine' }))
      .on('GET', '/environment/:id/statuses', () => ({
        applications: [
          poll++ === 0
            ? { id: 'app-1', state: 'DEPLOYING', deployment_request_id: 'mine', execution_id: 'env-1-exec-mine' }
            : { id: 'app-1', state: 'DEPLOYMENT_QUEUED', deployment_request_id: 'theirs', execution_id: 'env-1-exec-theirs' },
        ],
      }))
      .on('GET', '/environment/:id/deploymentHistoryV2', () => ({
        results: [
          { identifier: { execution_id: 'env-1-exec-theirs' }, stages: [{ services: [{ identifier: { service_id: 'app-1' }, status: 'QUEUED' }] }] },
          { identifier: { execution_id: 'env-1-exec-mine' }, stages: [{ services: [{ identifier: { service_id: 'app-1' }, status: 'DEPLOYED' }] }] },
        ],
      }));
    const timing = virtualTiming();
    const events: ApplyEvent[] = [];
    const notes = await deployStage({ ...stage, services: [stage.services[0]!] }, { api, timing, onEvent: (e) => events.push(e) }, opts(timing));
    expect(events.map((e) => (e.type === 'apply_progress' ? e.state : e.type))).toEqual(['DEPLOYING', 'DEPLOYED']);
    expect([...notes]).toEqual([[stage.services[0]!.address, "another deployment (request theirs) started on it after this apply's deployment ended; driftless did not wait for it"]]);
    // Two polls and one history read: nothing waited for the other deployment.
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /environment/env-1/service/deploy',
      'GET /environment/env-1/statuses',
      'GET /environment/env-1/statuses',
      'GET /environment/env-1/deploymentHistoryV2',
    ]);
  });

  it('fails at once, without waiting for the deadline, when its request was replaced and its outcome is nowhere to be read', async () => {
    let poll = 0;
    const api = new FakeApi()
      .on('POST', '/environment/:id/service/deploy', () => ({ deployment_request_id: 'mine' }))
      .on('GET', '/environment/:id/statuses', () => ({
        applications: [
          poll++ === 0
            ? { id: 'app-1', state: 'BUILDING', deployment_request_id: 'mine', execution_id: 'env-1-exec-mine' }
            : { id: 'app-1', state: 'DEPLOYING', deployment_request_id: 'theirs', execution_id: 'env-1-exec-theirs' },
        ],
      }))
      .on('GET', '/environment/:id/deploymentHistoryV2', () => ({ results: [] }));
    const timing = virtualTiming();
    const err = (await deployStage({ ...stage, services: [stage.services[0]!] }, { api, timing, onEvent: () => {} }, opts(timing)).catch((e) => e)) as DeployFailedError;
    expect(err).toBeInstanceOf(DeployFailedError);
    expect(err.failures.map((f) => [f.state, f.reason])).toEqual([
      ['BUILDING', "another deployment (request theirs) replaced this apply's deployment before its outcome could be read; see the service's deployment history"],
    ]);
    expect(timing.now()).toBeLessThan(10_000);
  });

  it('waits for a service busy with another operation (409), then deploys it', async () => {
    let posts = 0;
    let polls = 0;
    const api = new FakeApi()
      .on('POST', '/environment/:id/service/deploy', () => {
        if (posts++ === 0) throw new HttpError(409, "application 'api' is busy: a DEPLOY operation is in progress");
        return { deployment_request_id: 'mine' };
      })
      .on('GET', '/environment/:id/statuses', () => {
        polls++;
        if (posts === 1) return { applications: [{ id: 'app-1', state: polls === 1 ? 'DEPLOYING' : 'DEPLOYED', deployment_request_id: 'theirs' }] };
        return { applications: [{ id: 'app-1', state: 'DEPLOYED', deployment_request_id: 'mine' }] };
      });
    const timing = virtualTiming();
    await deployStage({ ...stage, services: [stage.services[0]!] }, { api, timing, onEvent: () => {} }, opts(timing));
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /environment/env-1/service/deploy',
      'GET /environment/env-1/statuses',
      'GET /environment/env-1/statuses',
      'POST /environment/env-1/service/deploy',
      'GET /environment/env-1/statuses',
    ]);
  });

  it('reports a billing restriction refusal with what to do', async () => {
    const api = new FakeApi().on('POST', '/environment/:id/service/deploy', () => {
      throw new HttpError(403, 'deployments are blocked by the billing restriction NO_CREDIT_CARD');
    });
    const timing = virtualTiming();
    const err = (await deployStage(stage, { api, timing, onEvent: () => {} }, opts(timing)).catch((e) => e)) as DeployFailedError;
    expect(err).toBeInstanceOf(DeployFailedError);
    expect(err.hint).toMatch(/billing restriction.*payment method/);
    expect(err.failures).toHaveLength(2);
    expect(api.calls).toHaveLength(1);
  });
});

describe('ourHistoryEntry', () => {
  const entry = (executionId: string, createdAt: number, services: string[] = ['ctr-1']): HistoryEntrySummary => ({ executionId, createdAt, services: new Map(services.map((id) => [id, 'DEPLOYED'])) });
  const sentAt = 1_000_000;
  // Newest first, as the API pages it.
  const history = [entry('theirs', sentAt + 900), entry('ours', sentAt + 20), entry('previous-run', sentAt - CLOCK_SKEW_MS - 1), entry('other-service', sentAt + 500, ['app-1'])];

  it('takes the entry of the service created after our request and before the other request took it', () => {
    expect(ourHistoryEntry(history, 'ctr-1', sentAt, { execution_id: 'theirs' })?.executionId).toBe('ours');
  });

  it('never takes the other request, an entry older than our request, or one without the service', () => {
    expect(ourHistoryEntry([entry('theirs', sentAt + 900), history[2]!, history[3]!], 'ctr-1', sentAt, { execution_id: 'theirs' })).toBeUndefined();
  });

  it("without the other request's entry in the page, takes the earliest entry since our request that is not known to be foreign", () => {
    const later = entry('later-foreign', sentAt + 1500);
    expect(ourHistoryEntry([later, ...history.slice(1)], 'ctr-1', sentAt, { execution_id: 'gone' })?.executionId).toBe('ours');
    expect(ourHistoryEntry([later, history[2]!], 'ctr-1', sentAt, { execution_id: 'gone' }, new Set(['later-foreign']))).toBeUndefined();
  });
});
