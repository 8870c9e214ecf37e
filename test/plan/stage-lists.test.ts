/** What a plan shows for a deployment stage's `services` (src/plan/stage-lists.ts). */
import { describe, expect, it } from 'vitest';
import type { LiveResource, LiveState } from '../../src/model/resource.js';
import { stageBeforeLists } from '../../src/plan/stage-lists.js';
import type { ResourceChange } from '../../src/plan/types.js';

const STAGE = 'project.p/environment.e/deployment_stage.first';
const stageChange = (fields: ResourceChange['fields'], over: Partial<ResourceChange> = {}): ResourceChange => ({
  address: STAGE, kind: 'deployment_stage', name: 'first', actions: ['update'], status: 'planned', reasons: [], fields, depends_on: [], ...over,
});
const liveStage = (address: string, services: unknown): LiveResource => ({ address, kind: 'deployment_stage', name: 'first', id: 's1', attrs: { services }, record: {}, version: 'v' });
const liveOf = (...rs: LiveResource[]): LiveState => ({ organizationId: 'o', resources: new Map(rs.map((r) => [r.address, r])), requestCount: 0 });

describe('stageBeforeLists', () => {
  it('shows the whole live membership before, and the manifest list plus the members left alone after', () => {
    const c = stageChange([{ field: 'services', before: ['API'], after: ['worker'] }]);
    stageBeforeLists([c], liveOf(liveStage(STAGE, ['api', 'zeta', 'cron', 7])), new Map());
    // "api" is owned (spelled "API" by the manifest, compared without case), zeta and cron are left alone.
    expect(c.fields[0]).toEqual({ field: 'services', before: ['API', 'cron', 'zeta'], after: ['cron', 'worker', 'zeta'] });
  });

  it('does not repeat a member left alone that the manifest also lists after, whatever its case', () => {
    const c = stageChange([{ field: 'services', before: [], after: ['CRON', 'web'] }]);
    stageBeforeLists([c], liveOf(liveStage(STAGE, ['cron', 'mail'])), new Map());
    expect(c.fields[0]).toEqual({ field: 'services', before: ['cron', 'mail'], after: ['CRON', 'mail', 'web'] });
  });

  it('reads the live stage under the address it was matched to', () => {
    const matched = 'project.p/environment.e/deployment_stage.First';
    const c = stageChange([{ field: 'services', before: [], after: ['web'] }]);
    stageBeforeLists([c], liveOf(liveStage(matched, ['mail'])), new Map([[STAGE, matched]]));
    expect(c.fields[0]).toEqual({ field: 'services', before: ['mail'], after: ['mail', 'web'] });
  });

  it('leaves alone other kinds, unmanaged stages, other fields and stages with no live record', () => {
    const live = liveOf(liveStage(STAGE, ['mail']));
    const unmanaged = stageChange([{ field: 'services', before: [], after: ['web'] }], { status: 'unmanaged' });
    const other = stageChange([{ field: 'services', before: [], after: ['web'] }], { kind: 'environment' });
    const noServices = stageChange([{ field: 'description', before: 'a', after: 'b' }]);
    const noLive = stageChange([{ field: 'services', before: [], after: ['web'] }], { address: `${STAGE}x` });
    stageBeforeLists([unmanaged, other, noServices, noLive], live, new Map());
    expect(unmanaged.fields[0]).toEqual({ field: 'services', before: [], after: ['web'] });
    expect(other.fields[0]).toEqual({ field: 'services', before: [], after: ['web'] });
    expect(noServices.fields).toEqual([{ field: 'description', before: 'a', after: 'b' }]);
    expect(noLive.fields[0]).toEqual({ field: 'services', before: [], after: ['web'] });
  });

  it('treats a live list that is not an array as empty', () => {
    const c = stageChange([{ field: 'services', before: ['api'], after: ['web'] }]);
    stageBeforeLists([c], liveOf(liveStage(STAGE, 'api')), new Map());
    expect(c.fields[0]).toEqual({ field: 'services', before: ['api'], after: ['web'] });
  });
});
