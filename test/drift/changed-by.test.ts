import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/live/audit-log.js';
import { attributeFromAuditLog, changedByLine, deletedInWindow, eventsAbout, inferredReport, isOwnWrite, partlyInferredReport, settledByWindow, whenText, windowStart } from '../../src/drift/changed-by.js';
import type { DriftItem, DriftReport } from '../../src/drift/detect.js';
import type { LiveResource, LiveState, ResourceKind } from '../../src/model/resource.js';

const ENV = 'project.shop/environment.staging';

function live(address: string, kind: ResourceKind, id: string, parent?: string, record: Record<string, unknown> = {}): LiveResource {
  return { address, kind, name: address.split('.').pop()!, ...(parent ? { parent } : {}), id, attrs: {}, record, version: '1' };
}

const state: LiveState = {
  organizationId: 'org',
  requestCount: 0,
  resources: new Map(
    [
      live('project.shop', 'project', 'p1'),
      live(ENV, 'environment', 'e1', 'project.shop'),
      live(`${ENV}/variable.A`, 'variable', 'va', ENV, { updated_at: '2026-11-25T10:42:00.100Z' }),
      live(`${ENV}/variable.B`, 'variable', 'vb', ENV, { updated_at: '2026-11-25T10:50:00Z' }),
      live(`${ENV}/container.web`, 'container', 's1', ENV),
    ].map((l) => [l.address, l]),
  ),
};

let n = 0;
function event(over: Partial<AuditEvent> & { user_agent?: string }): AuditEvent {
  n++;
  return { id: `ev${n}`, timestamp: '2026-11-25T10:42:00.123456789Z', event_type: 'UPDATE', target_type: 'ENVIRONMENT', target_id: 'e1', origin: 'API', triggered_by: 'admin token', ...over };
}

function item(address: string, kind: ResourceKind, drift: DriftItem['drift'], over: Partial<DriftItem> = {}): DriftItem {
  return { address, kind, name: address.split('.').pop()!, drift, origin: 'unknown', summary: 's', fields: [{ field: 'value', live: 'x', git: 'y' }], apply_action: 'a', apply_fixes: true, ...over };
}

function report(items: DriftItem[]): DriftReport {
  return { format_version: '1.0', in_sync: false, fingerprint: 'sha256:x', summary: { drifted: items.length, outside_git: 0, git: 0, unknown: items.length, not_fixed_by_apply: 0 }, items, checked: 5, request_count: 9 };
}

describe('eventsAbout', () => {
  it('finds a variable by the id its event change names, on its parent', () => {
    const mine = event({ sub_target_type: 'VARIABLE', change: JSON.stringify({ id: 'va', name: 'A' }) });
    const other = event({ sub_target_type: 'VARIABLE', change: JSON.stringify({ id: 'vb', name: 'B' }) });
    const service = event({ target_type: 'CONTAINER', target_id: 's1', change: JSON.stringify({ id: 's1', name: 'web' }) });
    expect(eventsAbout({ kind: 'variable', name: 'A', id: 'va', parentId: 'e1' }, [mine, other, service])).toEqual([mine]);
    // A service's own events are not its variables' ones, and the reverse.
    const varOfService = event({ target_type: 'CONTAINER', target_id: 's1', sub_target_type: 'VARIABLE', change: '{}' });
    expect(eventsAbout({ kind: 'container', name: 'web', id: 's1', parentId: 'e1' }, [service, varOfService])).toEqual([service]);
  });

  it('falls back to the key, then to the instant the record was written, and ignores deploys', () => {
    const byName = event({ sub_target_type: 'VARIABLE', change: JSON.stringify({ records: [{ name: 'A' }, { name: 'C' }] }) });
    expect(eventsAbout({ kind: 'variable', name: 'A', parentId: 'e1' }, [byName])).toEqual([byName]);
    const anonymous = event({ sub_target_type: 'SECRET', change: 'changed' });
    expect(eventsAbout({ kind: 'variable', name: 'A', parentId: 'e1', writtenAt: '2026-11-25T10:42:01Z' }, [anonymous])).toEqual([anonymous]);
    expect(eventsAbout({ kind: 'variable', name: 'A', parentId: 'e1', writtenAt: '2026-11-25T10:45:00Z' }, [anonymous])).toEqual([]);
    expect(eventsAbout({ kind: 'container', name: 'web', id: 's1' }, [event({ event_type: 'DEPLOYED', target_type: 'CONTAINER', target_id: 's1' })])).toEqual([]);
  });

  it('finds the deletion of an object no longer live by its type, name and environment', () => {
    const gone = event({ event_type: 'DELETE', target_type: 'CONTAINER', target_id: 's9', target_name: 'Worker', environment_id: 'e1' });
    const elsewhere = event({ event_type: 'DELETE', target_type: 'CONTAINER', target_id: 's8', target_name: 'worker', environment_id: 'e2' });
    expect(eventsAbout({ kind: 'container', name: 'worker', parentId: 'e1' }, [gone, elsewhere])).toEqual([gone]);
  });
});

describe('settledByWindow: the events the refresh read answer alone only where the whole log would answer the same', () => {
  const none = { names: new Set<string>() };
  const varA = item(`${ENV}/variable.A`, 'variable', 'changed');

  it('settles a live object whose latest write the window holds, matched by its id', () => {
    const edit = event({ sub_target_type: 'VARIABLE', timestamp: '2026-11-25T10:42:00.100Z', change: JSON.stringify({ id: 'va', name: 'A' }) });
    expect(settledByWindow(varA, state, [edit], none)).toBe(true);
    // Nothing about it in the window: its last write is older, the log is read back to it.
    expect(settledByWindow(varA, state, [event({ sub_target_type: 'VARIABLE', change: JSON.stringify({ id: 'vb', name: 'B' }) })], none)).toBe(false);
    // Not deployed: no event is used for it.
    expect(settledByWindow(item(`${ENV}/container.web`, 'container', 'not_deployed'), state, [], none)).toBe(true);
    // Deployed once: settled only by a configuration write since that deployment, else the log is read.
    const deployedOnce = item(`${ENV}/container.web`, 'container', 'not_deployed', { last_deployment: '2026-11-25T10:00:00Z' });
    expect(settledByWindow(deployedOnce, state, [], none)).toBe(false);
    const consoleWrite = event({ timestamp: '2026-11-25T10:30:00Z', target_type: 'CONTAINER', target_id: 's1', origin: 'CONSOLE', triggered_by: 'ops@example.com' });
    expect(settledByWindow(deployedOnce, state, [consoleWrite], none)).toBe(true);
  });

  it('does not settle a live object matched only by its name (an older event may name its id)', () => {
    const byName = event({ sub_target_type: 'VARIABLE', timestamp: '2026-11-25T10:42:00.100Z', change: JSON.stringify({ records: [{ name: 'A' }] }) });
    expect(eventsAbout({ kind: 'variable', name: 'A', id: 'va', parentId: 'e1' }, [byName])).toEqual([byName]);
    expect(settledByWindow(varA, state, [byName], none)).toBe(false);
  });

  it('does not settle a record written after the window\'s last event about it (a write the window missed)', () => {
    // variable.B was written at 10:50; the window's event about it is of 10:42.
    const older = event({ sub_target_type: 'VARIABLE', change: JSON.stringify({ id: 'vb', name: 'B' }) });
    expect(settledByWindow(item(`${ENV}/variable.B`, 'variable', 'changed'), state, [older], none)).toBe(false);
  });

  it('settles an unmanaged object only when driftless wrote it last or the window holds its creation', () => {
    const web = item(`${ENV}/container.web`, 'container', 'unmanaged');
    const update = event({ target_type: 'CONTAINER', target_id: 's1', user_agent: 'curl/8.5.0' });
    // Who created it decides removed from Git or created outside it, and that may be before the window.
    expect(settledByWindow(web, state, [update], none)).toBe(false);
    expect(settledByWindow(web, state, [event({ event_type: 'CREATE', target_type: 'CONTAINER', target_id: 's1', user_agent: 'curl/8.5.0' }), update], none)).toBe(true);
    expect(settledByWindow(web, state, [event({ target_type: 'CONTAINER', target_id: 's1', user_agent: 'driftless/0.1.0' })], none)).toBe(true);
  });

  it('settles an object that is gone by its deletion in the window', () => {
    const gone = item(`${ENV}/container.worker`, 'container', 'missing');
    expect(settledByWindow(gone, state, [event({ event_type: 'DELETE', target_type: 'CONTAINER', target_id: 's9', target_name: 'worker', environment_id: 'e1' })], none)).toBe(true);
    expect(settledByWindow(gone, state, [], none)).toBe(false);
  });
});

describe('deletedInWindow and partlyInferredReport', () => {
  const none = { names: new Set<string>() };
  const deletion = event({ event_type: 'DELETE', target_type: 'CONTAINER', target_id: 's9', target_name: 'worker', environment_id: 'e1', origin: 'CONSOLE', triggered_by: 'ops@example.com', timestamp: '2026-11-25T10:45:00Z' });

  it('dates a service no longer live by its deletion in the window, not a live one nor one deleted elsewhere', () => {
    expect(deletedInWindow({ address: `${ENV}/container.worker`, kind: 'container', name: 'worker' }, state, [deletion])).toBe(true);
    expect(deletedInWindow({ address: `${ENV}/container.worker`, kind: 'container', name: 'worker' }, state, [{ ...deletion, environment_id: 'e2' }])).toBe(false);
    expect(deletedInWindow({ address: `${ENV}/container.web`, kind: 'container', name: 'web' }, state, [{ ...deletion, target_id: 's1', target_name: 'web' }])).toBe(false);
  });

  it('keeps what the window settles when the log cannot be read further, and says the rest is inferred', () => {
    const r = report([item(`${ENV}/container.worker`, 'container', 'missing'), item(`${ENV}/variable.A`, 'variable', 'changed', { origin: 'git' })]);
    const out = partlyInferredReport(r, state, [deletion], none, 'the audit log could not be read (HTTP 500)');
    expect(out.items.map((i) => [i.address, i.origin, i.attribution, i.changed_by?.triggered_by])).toEqual([
      [`${ENV}/container.worker`, 'outside_git', 'audit_log', 'ops@example.com'],
      [`${ENV}/variable.A`, 'git', 'inference', undefined],
    ]);
    expect(out.summary).toMatchObject({ outside_git: 1, git: 1, unknown: 0 });
    expect(out.attribution).toEqual({ source: 'inference', reason: 'for 1 of 2 items, the audit log could not be read (HTTP 500)' });
    // Nothing settled: the whole report is the inference.
    expect(partlyInferredReport(r, state, [], none, 'x')).toEqual(inferredReport(r, 'x'));
  });
});

describe('isOwnWrite', () => {
  it('is driftless by its user agent, never a console user, and only the named tokens once any is named', () => {
    const none = { names: new Set<string>() };
    expect(isOwnWrite(event({ user_agent: 'driftless' }), none)).toBe(true);
    expect(isOwnWrite(event({ user_agent: 'driftless/0.1.0' }), none)).toBe(true);
    expect(isOwnWrite(event({ user_agent: 'curl/8.5.0' }), none)).toBe(false);
    expect(isOwnWrite(event({ user_agent: 'driftless', origin: 'CONSOLE', triggered_by: 'a@b.c' }), none)).toBe(false);
    const named = { names: new Set(['ci-apply']) };
    expect(isOwnWrite(event({ user_agent: 'driftless', triggered_by: 'laptop token' }), named)).toBe(false);
    expect(isOwnWrite(event({ user_agent: 'curl/8.5.0', triggered_by: 'ci-apply' }), named)).toBe(true);
  });
});

describe('attributeFromAuditLog', () => {
  it('sets changed_by, the origin, the cause of undeclared objects and the summary counts; the fingerprint stays', () => {
    const consoleEdit = event({ sub_target_type: 'VARIABLE', origin: 'CONSOLE', triggered_by: 'ops-oncall@example.com', change: JSON.stringify({ id: 'va', name: 'A' }) });
    const created = event({ event_type: 'CREATE', sub_target_type: 'VARIABLE', user_agent: 'driftless', timestamp: '2026-11-25T09:00:00Z', change: JSON.stringify({ id: 'vb', name: 'B' }) });
    const r = attributeFromAuditLog(report([item(`${ENV}/variable.A`, 'variable', 'changed'), item(`${ENV}/variable.B`, 'variable', 'unmanaged', { fields: [] })]), state, [created, consoleEdit], { names: new Set() });
    expect(r.attribution).toEqual({ source: 'audit_log' });
    expect(r.fingerprint).toBe('sha256:x');
    expect(r.items[0]).toMatchObject({ origin: 'outside_git', attribution: 'audit_log', changed_by: { origin: 'CONSOLE', triggered_by: 'ops-oncall@example.com', at: '2026-11-25T10:42:00.123456789Z' } });
    expect(changedByLine(r.items[0]!)).toBe('changed in the console by ops-oncall@example.com at 10:42 UTC on 2026-11-25');
    expect(r.items[1]).toMatchObject({ origin: 'git', cause: 'removed_from_git', attribution: 'audit_log' });
    expect(changedByLine(r.items[1]!)).toBe('written by driftless through the API by token "admin token" at 09:00 UTC on 2026-11-25; removed from Git since');
    expect(r.summary).toMatchObject({ outside_git: 1, git: 1, unknown: 0 });
  });

  it('a record driftless wrote last that differs from Git is a change made in Git, not applied yet', () => {
    const applied = event({ target_type: 'CONTAINER', target_id: 's1', user_agent: 'driftless', change: JSON.stringify({ id: 's1', name: 'web' }) });
    const r = attributeFromAuditLog(report([item(`${ENV}/container.web`, 'container', 'changed', { origin: 'outside_git', fields: [{ field: 'tag', live: '1', git: '2' }] })]), state, [applied], { names: new Set() });
    expect(r.items[0]).toMatchObject({ origin: 'git', attribution: 'audit_log', summary: 'tag differs from Git: changed in Git since driftless last wrote it, not applied yet' });
    expect(changedByLine(r.items[0]!)).toBe('last written by driftless through the API by token "admin token" at 10:42 UTC on 2026-11-25');
  });

  it('keeps the inference, labelled, for an item the log says nothing about', () => {
    const r = attributeFromAuditLog(report([item(`${ENV}/variable.A`, 'variable', 'changed', { origin: 'outside_git' })]), state, [], { names: new Set() });
    expect(r.items[0]).toMatchObject({ origin: 'outside_git', attribution: 'inference' });
    expect(r.items[0]!.changed_by).toBeUndefined();
    expect(inferredReport(report([item('x', 'project', 'changed')]), 'the API has no audit log (404)')).toMatchObject({ attribution: { source: 'inference', reason: 'the API has no audit log (404)' }, items: [{ attribution: 'inference' }] });
  });
});

describe('window and time', () => {
  it('starts a second before the earliest write or deployment of the drifted items', () => {
    expect(windowStart(report([item('a', 'project', 'changed', { since: '2026-11-25T10:42:00Z' }), item('b', 'project', 'changed', { last_deployment: '2026-11-25T10:40:00.500Z' })]))).toBe('2026-11-25T10:39:59.500Z');
    expect(windowStart(report([item('a', 'project', 'missing')]))).toBeUndefined();
    // A dated record's own write bounds it, not an older deployment of its service.
    expect(windowStart(report([item('a', 'variable', 'changed', { since: '2026-11-25T10:42:00Z', last_deployment: '2026-11-20T08:00:00Z' })]))).toBe('2026-11-25T10:41:59.000Z');
  });

  it('says the minute in UTC', () => {
    expect(whenText('2026-11-25T10:42:59.999999999Z')).toBe('10:42 UTC on 2026-11-25');
    expect(whenText('2026-11-25T23:30:00+02:00')).toBe('21:30 UTC on 2026-11-25');
  });
});

describe('attributeFromAuditLog: a service not running its configuration', () => {
  const notDeployed = item(`${ENV}/container.web`, 'container', 'not_deployed', { fields: [], last_deployment: '2026-11-25T10:40:00Z' });
  const ownVariableWrite = event({ timestamp: '2026-11-25T10:41:00Z', target_type: 'PROJECT', target_id: 'p1', sub_target_type: 'VARIABLE', user_agent: 'driftless/0.1.0' });
  const consoleBeforeDeploy = event({ timestamp: '2026-11-25T10:39:00Z', target_type: 'CONTAINER', target_id: 's1', origin: 'CONSOLE', triggered_by: 'ops@example.com' });

  it('names the latest write since its last deployment to it or a variable it sees: driftless without a deploy is Git not applied', () => {
    const [r] = attributeFromAuditLog(report([notDeployed]), state, [consoleBeforeDeploy, ownVariableWrite], { names: new Set() }).items;
    expect(r).toMatchObject({ origin: 'git', attribution: 'audit_log', changed_by: { origin: 'API', triggered_by: 'admin token', at: '2026-11-25T10:41:00Z' } });
    expect(changedByLine(r!)).toBe('configuration last changed by driftless through the API by token "admin token" at 10:41 UTC on 2026-11-25, not deployed since');
  });

  it('ignores writes before the deployment and other services\' writes: then it stays an inference', () => {
    const otherService = event({ timestamp: '2026-11-25T10:41:00Z', target_type: 'CONTAINER', target_id: 's2', origin: 'CONSOLE', triggered_by: 'ops@example.com' });
    const [r] = attributeFromAuditLog(report([notDeployed]), state, [consoleBeforeDeploy, otherService], { names: new Set() }).items;
    expect(r).toMatchObject({ origin: 'unknown', attribution: 'inference' });
    expect(r!.changed_by).toBeUndefined();
  });
});

