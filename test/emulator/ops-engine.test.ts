/**
 * The operation engine as a pure function of time: `advance(op, now)` and the phase tables, without
 * a server. Stage order, cancel after a failure and catch-up are checked at exact instants.
 */
import { describe, expect, test } from 'vitest';
import { advance, busyServices, type OpService, type Operation, type OperationEffects } from '../../src/emulator/ops/engine.js';
import { pageOf } from '../../src/emulator/ops/history.js';
import { isoDuration, phasesFor } from '../../src/emulator/ops/timeline.js';

function service(id: string, type: string, fail = false, total = 100): OpService {
  return { service_id: id, service_type: type, name: id, phases: phasesFor('DEPLOY', { id, service_type: type, created_at: '' }, total, fail), phase: -1, phase_started_at: 0, sub_action: 'NONE' };
}

function operation(stages: string[][], services: OpService[]): Operation {
  return {
    id: 'op', created_at: '', action: 'DEPLOY', environment_id: 'env', execution_id: 'x', deployment_request_id: 'r', triggered_by: 't',
    started_at: 1000, stage: 0, stages: stages.map((ids, i) => ({ name: `s${i}`, service_ids: ids })),
    services: Object.fromEntries(services.map((s) => [s.service_id, s])),
  };
}

function recorder() {
  const events: string[] = [];
  const fx: OperationEffects = {
    onPhase: (_op, s, at) => events.push(`${at} ${s.service_id} ${s.phases[s.phase].state}`),
    onCanceled: (_op, s, at) => events.push(`${at} ${s.service_id} CANCELED`),
    onFinished: (_op, at) => events.push(`${at} finished`),
  };
  return { events, fx };
}

describe('phases', () => {
  test('git builds have a BUILDING phase; image deployments do not; failures end in the right error', () => {
    expect(phasesFor('DEPLOY', { id: 'a', created_at: '', service_type: 'APPLICATION' }, 1000, false)).toEqual([
      { state: 'DEPLOYMENT_QUEUED', ms: 100 }, { state: 'BUILDING', ms: 400 }, { state: 'DEPLOYING', ms: 500 }, { state: 'DEPLOYED', ms: 0 },
    ]);
    expect(phasesFor('DEPLOY', { id: 'c', created_at: '', service_type: 'CONTAINER' }, 1000, true).map((p) => p.state)).toEqual(['DEPLOYMENT_QUEUED', 'DEPLOYING', 'DEPLOYMENT_ERROR']);
    expect(phasesFor('DEPLOY', { id: 'a', created_at: '', service_type: 'APPLICATION' }, 1000, true).map((p) => p.state)).toEqual(['DEPLOYMENT_QUEUED', 'BUILDING', 'BUILD_ERROR']);
    expect(phasesFor('DEPLOY', { id: 'j', created_at: '', service_type: 'JOB', source: { docker: { git_repository: {} } } }, 1000, false).map((p) => p.state)).toContain('BUILDING');
    expect(phasesFor('DELETE', { id: 'c', created_at: '', service_type: 'CONTAINER' }, 1000, false).map((p) => p.state)).toEqual(['DELETE_QUEUED', 'DELETING', 'DELETED']);
  });

  test('durations read as ISO 8601', () => {
    expect(isoDuration(0)).toBe('PT0S');
    expect(isoDuration(63_000)).toBe('PT1M3S');
    expect(isoDuration(3_600_000)).toBe('PT1H');
  });
});

describe('advance', () => {
  test('stage 2 starts exactly when stage 1 ends; nothing moves before its time', () => {
    const op = operation([['db'], ['api']], [service('db', 'DATABASE'), service('api', 'APPLICATION')]);
    const { events, fx } = recorder();
    expect(advance(op, 1000, fx)).toBe(1020); // db queued for 20% of 100 ms
    expect(events).toEqual(['1000 db DEPLOYMENT_QUEUED']);
    expect(advance(op, 1019, fx)).toBe(1020);
    expect(events).toHaveLength(1);
    expect(busyServices({ op } as any).has('api')).toBe(true);
    // Catch up everything at once (as after a restart): each transition at its due time.
    expect(advance(op, 5000, fx)).toBeUndefined();
    expect(events).toEqual([
      '1000 db DEPLOYMENT_QUEUED', '1020 db DEPLOYING', '1100 db DEPLOYED',
      '1100 api DEPLOYMENT_QUEUED', '1110 api BUILDING', '1150 api DEPLOYING', '1200 api DEPLOYED',
      '1200 finished',
    ]);
    expect(busyServices({ op } as any).size).toBe(0);
  });

  test('services of one stage run side by side; a failed stage cancels the later ones', () => {
    const op = operation([['a', 'b'], ['c']], [service('a', 'CONTAINER'), service('b', 'CONTAINER', true), service('c', 'CONTAINER')]);
    const { events, fx } = recorder();
    advance(op, 10_000, fx);
    expect(events).toEqual([
      '1000 a DEPLOYMENT_QUEUED', '1000 b DEPLOYMENT_QUEUED', '1020 a DEPLOYING', '1100 a DEPLOYED',
      '1020 b DEPLOYING', '1100 b DEPLOYMENT_ERROR', '1100 c CANCELED', '1100 finished',
    ]);
  });
});

describe('history paging', () => {
  const entries = [1, 2, 3, 4, 5].map((n) => ({ id: `e${n}`, created_at: '', identifier: { execution_id: `x${n}` } }));
  test('newest first, pageSize entries, startId continues after the given entry', () => {
    expect(pageOf(entries, undefined, undefined).results.map((e) => e.id)).toEqual(['e5', 'e4', 'e3', 'e2', 'e1']);
    expect(pageOf(entries, 2, undefined)).toMatchObject({ page: 1, page_size: 2 });
    expect(pageOf(entries, 2, 'x4')).toMatchObject({ page: 2, results: [{ id: 'e3' }, { id: 'e2' }] });
    expect(pageOf(entries, 2, 'x1').results).toEqual([]);
    expect(() => pageOf(entries, 2, 'nope')).toThrow(/startId/);
    expect(() => pageOf(entries, 0, undefined)).toThrow(/pageSize/);
  });
});
