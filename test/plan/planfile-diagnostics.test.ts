/**
 * What a user reads when a saved plan file is refused (src/plan/planfile.ts): the exact summary and
 * advice of each diagnostic, the position it points at, and the members written or left out. Seals
 * are made here with node:crypto from plan-seal.ts's definition, not with the code under test.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { computePlan } from '../../src/plan/compute.js';
import { findStaleObjects, parsePlanFile, readPlanFile, serializePlanFile } from '../../src/plan/planfile.js';
import { KEY, apiRecords, fullManifest, liveFrom } from './fixtures.js';

const SEAL_KEY = 'planfile-diagnostics-key';
const keyOf = () => ({ key: SEAL_KEY, source: 'env' as const });
const REPLAN = 'Run `driftless plan --out FILE` again and apply the new file.';

function seal(body: Record<string, unknown>, fingerprintKey = SEAL_KEY, source = 'env'): Record<string, unknown> {
  const sealKey = createHmac('sha256', fingerprintKey).update('driftless plan-file seal v1').digest();
  const keyId = createHmac('sha256', sealKey).update('driftless plan-file key id v1').digest('hex').slice(0, 16);
  const s = { algorithm: 'hmac-sha256', key_source: source, key_id: keyId };
  return { ...body, seal: { ...s, mac: createHmac('sha256', sealKey).update(JSON.stringify({ ...body, seal: s })).digest('hex') } };
}

const plan = (apiUrl?: string) => computePlan(buildGraph(fullManifest()).graph, liveFrom(apiRecords()), { fingerprintKey: KEY, ...(apiUrl ? { apiUrl } : {}) });
const body = (apiUrl = 'http://127.0.0.1:4000') => {
  const { seal: _s, ...b } = JSON.parse(serializePlanFile(plan(apiUrl), '2026-11-21T00:00:00Z', keyOf(), ['m.yaml']));
  return b as Record<string, unknown>;
};
const only = (text: string, expect_ = {}, k: Parameters<typeof parsePlanFile>[2] = keyOf) => {
  const { diagnostics } = parsePlanFile(text, 'plan.json', k, expect_);
  expect(diagnostics).toHaveLength(1);
  return diagnostics[0]!;
};
const AT = { file: 'plan.json', start: { line: 1, col: 1 } };

describe('serializePlanFile', () => {
  it('writes the API url and the manifest paths only when there are some, as indented JSON ending in a newline', () => {
    const text = serializePlanFile(plan(), '2026-11-21T00:00:00Z', keyOf(), []);
    const doc = JSON.parse(text);
    expect('api_url' in doc).toBe(false);
    expect('manifest_paths' in doc).toBe(false);
    expect('manifest_paths' in JSON.parse(serializePlanFile(plan(), '2026-11-21T00:00:00Z', keyOf()))).toBe(false);
    expect(text).toBe(JSON.stringify(doc, null, 2) + '\n');
    expect(JSON.parse(serializePlanFile(plan('http://x'), 'now', keyOf(), ['a.yaml', 'b.yaml']))).toMatchObject({ api_url: 'http://x', manifest_paths: ['a.yaml', 'b.yaml'] });
  });
});

describe('parsePlanFile diagnostics', () => {
  it('says what is wrong with a file that is not a plan, and where', () => {
    expect(only('{"kind": "driftless-plan"')).toEqual({ severity: 'error', code: 'planfile.corrupt', summary: 'plan.json is not a driftless plan file (not valid JSON)', detail: `The file may be truncated or not a plan. ${REPLAN}`, range: AT });
    const foreign = { severity: 'error', code: 'planfile.foreign', summary: 'plan.json is not a driftless plan file', detail: 'Expected a JSON document with "kind": "driftless-plan" (written by `driftless plan --out`). A manifest is applied with `driftless apply PATH`.', range: AT };
    for (const text of ['null', '"driftless-plan"', '[{"kind": "driftless-plan"}]', '{"kind": "plan"}']) expect(only(text)).toEqual(foreign);
    expect(only('{"kind": "driftless-plan", "format_version": 1}')).toMatchObject({ code: 'planfile.version', summary: 'plan.json has plan format 1; this driftless reads format 1.0', detail: `The plan was written by another version of driftless. ${REPLAN}` });
  });

  it('reads any format of the same major version', () => {
    const doc = seal({ ...body(), format_version: '1.7' });
    expect(parsePlanFile(JSON.stringify(doc), 'plan.json', keyOf).diagnostics).toEqual([]);
  });

  it('calls a file that names no organization damaged', () => {
    const { organization_id: _o, ...noOrg } = body();
    expect(only(JSON.stringify(seal(noOrg)))).toEqual({ severity: 'error', code: 'planfile.corrupt', summary: 'plan.json is damaged: it names no organization', detail: `The file was edited or truncated after it was written. ${REPLAN}`, range: AT });
  });

  it('explains an unsealed, an edited and a foreign-key file', () => {
    expect(only(JSON.stringify(body()))).toEqual({ severity: 'error', code: 'planfile.unsealed', summary: 'plan.json has no seal: it was not written by this version of driftless, or its seal was removed', detail: `A plan file must carry the seal \`driftless plan --out\` writes. ${REPLAN}`, range: AT });
    const edited = seal(body());
    edited.created_at = 'yesterday';
    expect(only(JSON.stringify(edited))).toEqual({ severity: 'error', code: 'planfile.tampered', summary: 'plan.json was edited after it was written: its content does not match its seal', detail: `A saved plan is applied exactly as it was written. Nothing was changed. ${REPLAN}`, range: AT });
    // Sealed with a key whose source the file does not state, read with the fallback key.
    const noSource = seal(body(), 'other');
    delete (noSource.seal as Record<string, unknown>).key_source;
    expect(only(JSON.stringify(noSource), {}, () => ({ key: 'fallback-key', source: 'fallback' }))).toEqual({
      severity: 'error',
      code: 'planfile.other-key',
      summary: "plan.json was sealed with another key than this apply's key derived from the organization id (DRIFTLESS_FINGERPRINT_KEY is not set)",
      detail: 'Plan and apply must run with the same DRIFTLESS_FINGERPRINT_KEY (set, or unset, in both). Nothing was changed.',
      range: AT,
    });
  });

  it('shows a file sealed with another key, unverified, only when asked (show); never an edited one', () => {
    const text = JSON.stringify(seal(body(), 'other', 'fallback'));
    const shown = parsePlanFile(text, 'plan.json', keyOf, { allowOtherKey: true });
    expect(shown.plan?.kind).toBe('driftless-plan');
    expect(shown.diagnostics).toEqual([
      {
        severity: 'warning',
        code: 'planfile.unverified',
        summary: "plan.json is shown unverified: it was sealed with another key than this command's DRIFTLESS_FINGERPRINT_KEY",
        detail: 'The file says it was sealed without DRIFTLESS_FINGERPRINT_KEY (with the key derived from the organization id). Run with the DRIFTLESS_FINGERPRINT_KEY the plan was made with to verify it.',
        range: AT,
      },
    ]);
    const fallbackReader = parsePlanFile(JSON.stringify(seal(body(), 'other')), 'plan.json', () => ({ key: 'fb', source: 'fallback' }), { allowOtherKey: true });
    expect(fallbackReader.diagnostics[0]!.summary).toBe("plan.json is shown unverified: it was sealed with another key than this command's key derived from the organization id (DRIFTLESS_FINGERPRINT_KEY is not set)");
    expect(fallbackReader.diagnostics[0]!.detail).toBe('The file says it was sealed with a DRIFTLESS_FINGERPRINT_KEY. Run with the DRIFTLESS_FINGERPRINT_KEY the plan was made with to verify it.');
    const edited = seal(body());
    edited.created_at = 'yesterday';
    expect(only(JSON.stringify(edited), { allowOtherKey: true }).code).toBe('planfile.tampered');
  });

  it('refuses a sealed file whose plan does not match its header', () => {
    const damaged = { severity: 'error', code: 'planfile.corrupt', summary: 'plan.json is damaged: its plan does not match its header', detail: `The file was not written by \`driftless plan --out\`. ${REPLAN}`, range: AT };
    const b = body();
    const p = b.plan as Record<string, unknown>;
    expect(only(JSON.stringify(seal({ ...b, plan: undefined })))).toEqual(damaged);
    expect(only(JSON.stringify(seal({ ...b, plan: 'x' })))).toEqual(damaged);
    expect(only(JSON.stringify(seal({ ...b, plan: { ...p, changes: {} } })))).toEqual(damaged);
    expect(only(JSON.stringify(seal({ ...b, plan: { ...p, organization_id: 'org-2' } })))).toEqual(damaged);
    expect(only(JSON.stringify(seal({ ...b, plan: { ...p, api_url: 'http://elsewhere' } })))).toEqual(damaged);
  });

  it('names the API and the organization a plan was made for when they are not this run', () => {
    const text = JSON.stringify(seal(body()));
    expect(parsePlanFile(text, 'plan.json', keyOf, { apiUrl: 'http://127.0.0.1:4000//', organizationId: 'org-1' }).diagnostics).toEqual([]);
    expect(only(text, { apiUrl: 'https://api.example.com' })).toEqual({ severity: 'error', code: 'planfile.wrong-target', summary: 'plan.json was planned against http://127.0.0.1:4000, not https://api.example.com', detail: 'Apply it with the same DRIFTLESS_API_URL, or run `driftless plan --out FILE` again and apply the new file.', range: AT });
    expect(only(text, { organizationId: 'org-2' })).toEqual({ severity: 'error', code: 'planfile.wrong-target', summary: 'plan.json was planned for organization org-1, not org-2', detail: 'Use a token of the organization the plan was made for, or run `driftless plan --out FILE` again and apply the new file.', range: AT });
    // A plan made without an API url is not tied to one.
    const anywhere = JSON.stringify(seal(body('')));
    expect(parsePlanFile(anywhere, 'plan.json', keyOf, { apiUrl: 'https://api.example.com' }).diagnostics).toEqual([]);
  });

  it('names the error code of a plan file it cannot read', async () => {
    const r = await readPlanFile('/nonexistent/driftless/plan.json', keyOf);
    expect(r.diagnostics).toEqual([{ severity: 'error', code: 'planfile.unreadable', summary: 'cannot read plan file /nonexistent/driftless/plan.json (ENOENT)', detail: 'Check the path given to `driftless apply`.' }]);
  });
});

describe('findStaleObjects', () => {
  it('reports an object deleted since the plan without a current version, and one recreated under a new id', () => {
    const p = plan();
    p.live_objects = { 'project.shop': { id: 'id-shop', version: '2026-11-01T10:00:00Z' }, 'project.gone': { id: 'id-gone', version: 'v1' } };
    p.changes = [];
    const r = apiRecords();
    const live = liveFrom(r);
    expect(findStaleObjects(p, live)).toEqual([{ address: 'project.gone', planned: 'v1' }]);
    live.resources.set('project.shop', { ...live.resources.get('project.shop')!, id: 'id-shop-2' });
    expect(findStaleObjects(p, live)).toEqual([
      { address: 'project.shop', planned: '2026-11-01T10:00:00Z', current: '2026-11-01T10:00:00Z' },
      { address: 'project.gone', planned: 'v1' },
    ]);
  });

  it('ignores a blocked create whose object now exists (it was never going to be made)', () => {
    const p = plan();
    p.live_objects = {};
    p.changes = [{ address: 'project.shop', kind: 'project', name: 'shop', actions: ['create'], status: 'blocked', reasons: [], fields: [], depends_on: [] }];
    expect(findStaleObjects(p, liveFrom(apiRecords()))).toEqual([]);
    p.changes[0]!.status = 'planned';
    expect(findStaleObjects(p, liveFrom(apiRecords()))).toEqual([{ address: 'project.shop', planned: '(absent)', current: '2026-11-01T10:00:00Z' }]);
  });
});
