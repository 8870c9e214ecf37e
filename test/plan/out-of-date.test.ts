/**
 * A service the platform reports OUT_OF_DATE (its configuration or variables changed since its
 * last deployment: `apply --no-deploy`, an interrupted apply) is deployed when something the
 * manifest owns explains it -- its own record, a declared variable it sees, a declared group it
 * uses, written after its last deployment -- and not when only something undeclared does, nor when
 * an ignore_changes field that differs live may be the whole change.
 */
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import type { ContainerSpec, Manifest } from '../../src/manifest/types.js';
import type { LiveState } from '../../src/model/resource.js';
import { computePlan } from '../../src/plan/compute.js';
import { OUT_OF_DATE_REASON } from '../../src/plan/deploy.js';
import { KEY, PROD, apiRecords, fullManifest, liveFrom } from './fixtures.js';

const WEB = `${PROD}/container.web`;
const DB = `${PROD}/database.db`;
const DEPLOYED = '2026-11-02T10:00:00Z';
const BEFORE = '2026-11-02T09:00:00Z';
const AFTER = '2026-11-02T11:00:00Z';

function outOfDate(live: LiveState, address: string): LiveState {
  live.resources.get(address)!.status = { state: 'DEPLOYED', service_deployment_status: 'OUT_OF_DATE', last_deployment_date: DEPLOYED };
  return live;
}

function written(live: LiveState, address: string, at: string): LiveState {
  const l = live.resources.get(address)!;
  l.record = { ...l.record, updated_at: at };
  return live;
}

function deployReasons(m: Manifest, live: LiveState, address: string): string[] | undefined {
  const { graph, diagnostics } = buildGraph(m);
  expect(diagnostics).toEqual([]);
  return computePlan(graph, live, { fingerprintKey: KEY }).changes.find((c) => c.address === address)!.deploy?.reasons;
}

const fresh = () => liveFrom(apiRecords());

describe('OUT_OF_DATE services', () => {
  it('an UP_TO_DATE service written since its deployment is not deployed (the status says it runs its configuration)', () => {
    expect(deployReasons(fullManifest(), written(fresh(), WEB, AFTER), WEB)).toBeUndefined();
  });

  it('deploys one whose record was written after its last deployment', () => {
    expect(deployReasons(fullManifest(), written(outOfDate(fresh(), WEB), WEB, AFTER), WEB)).toEqual([OUT_OF_DATE_REASON]);
  });

  it('deploys one that sees a declared variable written after its last deployment', () => {
    const live = written(outOfDate(fresh(), WEB), 'project.shop/variable.LOG_LEVEL', AFTER);
    expect(deployReasons(fullManifest(), live, WEB)).toEqual([OUT_OF_DATE_REASON]);
  });

  it('does not deploy one that nothing declared explains (a variable added in the console)', () => {
    expect(deployReasons(fullManifest(), written(outOfDate(fresh(), WEB), WEB, BEFORE), WEB)).toBeUndefined();
  });

  it('a database sees no variable: a variable written since does not explain its OUT_OF_DATE', () => {
    const live = written(outOfDate(fresh(), DB), 'project.shop/variable.LOG_LEVEL', AFTER);
    expect(deployReasons(fullManifest(), live, DB)).toBeUndefined();
    expect(deployReasons(fullManifest(), written(live, DB, AFTER), DB)).toEqual([OUT_OF_DATE_REASON]);
  });

  it('does not deploy when an ignored field that differs live may be the whole change', () => {
    const m = fullManifest();
    const web = m.projects![0]!.environments![0]!.services!.find((s) => s.name === 'web') as ContainerSpec;
    web.ignore_changes = ['tag'];
    // The ignored tag equals the manifest's: the record's write is the manifest's own business.
    expect(deployReasons(m, written(outOfDate(fresh(), WEB), WEB, AFTER), WEB)).toEqual([OUT_OF_DATE_REASON]);
    // Someone else set another tag (and did not deploy it): not driftless's deploy to make.
    web.tag = '1.28';
    expect(deployReasons(m, written(outOfDate(fresh(), WEB), WEB, AFTER), WEB)).toBeUndefined();
  });
});
