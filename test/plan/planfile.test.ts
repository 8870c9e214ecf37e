import { createHash, createHmac } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildGraph } from '../../src/graph/build.js';
import { computePlan } from '../../src/plan/compute.js';
import { findStaleObjects, parsePlanFile, readPlanFile, serializePlanFile, writePlanFile } from '../../src/plan/planfile.js';
import { ALL_SECRETS, KEY, API, apiRecords, fullManifest, liveFrom } from './fixtures.js';

function makePlan() {
  const m = fullManifest();
  m.projects![0]!.environments![0]!.cluster = 'staging-cluster';
  const r = apiRecords();
  r.variables['id-shop']![1]!.description = 'no marker';
  return computePlan(buildGraph(m).graph, liveFrom(r), { fingerprintKey: KEY, apiUrl: 'http://127.0.0.1:4000', allowDataLoss: true });
}

/** The seal computed here from its definition (plan-seal.ts), not with the code under test. */
function independentSeal(doc: Record<string, unknown>, fingerprintKey: string): Record<string, unknown> {
  const sealKey = createHmac('sha256', fingerprintKey).update('driftless plan-file seal v1').digest();
  const keyId = createHmac('sha256', sealKey).update('driftless plan-file key id v1').digest('hex').slice(0, 16);
  const { seal: _old, ...body } = doc;
  const seal = { algorithm: 'hmac-sha256', key_source: 'env', key_id: keyId };
  const mac = createHmac('sha256', sealKey).update(JSON.stringify({ ...body, seal })).digest('hex');
  return { ...body, seal: { ...seal, mac } };
}

const SEAL_KEY = 'plan-file-test-key-0123456789';
const sealKey = { key: SEAL_KEY, source: 'env' as const };
const keyOf = () => sealKey;

describe('plan files', () => {
  it('round-trips a plan, with no secret value inside', async () => {
    const plan = makePlan();
    const dir = await mkdtemp(join(tmpdir(), 'driftless-plan-'));
    try {
      const file = join(dir, 'plan.json');
      await writePlanFile(file, plan, sealKey, '2026-11-21T00:00:00Z');
      const text = await readFile(file, 'utf8');
      for (const s of ALL_SECRETS) expect(text).not.toContain(s);
      expect(text).not.toContain(SEAL_KEY);
      const back = await readPlanFile(file, keyOf, { apiUrl: 'http://127.0.0.1:4000/', organizationId: 'org-1' });
      expect(back.diagnostics).toEqual([]);
      expect(back.plan!.plan).toEqual(JSON.parse(JSON.stringify(plan)));
      expect(back.plan!.api_url).toBe('http://127.0.0.1:4000');
      expect(back.plan!.plan.live_objects[API]).toEqual({ id: 'id-api', version: '2026-11-01T10:00:00Z' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('seals the whole document with HMAC-SHA256 under a key derived from the fingerprint key', () => {
    const text = serializePlanFile(makePlan(), '2026-11-21T00:00:00Z', sealKey, ['m']);
    const doc = JSON.parse(text);
    expect(doc.seal).toEqual(independentSeal(doc, SEAL_KEY).seal);
    // Only whitespace may change: the same members re-indented still verify.
    expect(parsePlanFile(JSON.stringify(doc), 'p.json', keyOf).diagnostics).toEqual([]);
  });

  it('rejects a corrupt, foreign, old, edited, re-sealed or mistargeted file with a clear diagnostic', () => {
    const good = serializePlanFile(makePlan(), '2026-11-21T00:00:00Z', sealKey, ['m']);
    const code = (text: string, expect_ = {}, k = keyOf) => parsePlanFile(text, 'p.json', k, expect_).diagnostics.map((d) => d.code);
    expect(code(good)).toEqual([]);
    expect(code(good.slice(0, 200))).toEqual(['planfile.corrupt']);
    expect(code('{"version": 1, "projects": []}')).toEqual(['planfile.foreign']);
    expect(code(good.replace('"format_version": "1.0"', '"format_version": "0.3"'))).toEqual(['planfile.version']);
    // Every member is covered: options, an action's status, the API URL, the organization, the paths.
    expect(code(good.replace('"allow_data_loss": true', '"allow_data_loss": false'))).toEqual(['planfile.tampered']);
    expect(code(good.replace('"status": "planned"', '"status": "blocked"'))).toEqual(['planfile.tampered']);
    expect(code(good.replaceAll('http://127.0.0.1:4000', 'http://127.0.0.1:4001'))).toEqual(['planfile.tampered']);
    expect(code(good.replaceAll('"org-1"', '"org-2"'))).toEqual(['planfile.tampered']);
    expect(code(good.replace('"m"', '"other"'))).toEqual(['planfile.tampered']);
    expect(code(good.replace('"key_source": "env"', '"key_source": "fallback"'))).toEqual(['planfile.tampered']);
    // The old plain checksum, or no seal at all, is not a seal.
    const unsealed = { ...JSON.parse(good) };
    delete unsealed.seal;
    expect(code(JSON.stringify({ ...unsealed, checksum: 'sha256:' + createHash('sha256').update(JSON.stringify(unsealed.plan)).digest('hex') }))).toEqual(['planfile.unsealed']);
    // Re-sealed by someone holding the key: accepted (the seal proves the key, not the intent).
    const edited = JSON.parse(good.replace('"allow_data_loss": true', '"allow_data_loss": false'));
    expect(code(JSON.stringify(independentSeal(edited, SEAL_KEY)))).toEqual([]);
    // Read with another key: said so, not "edited".
    const other = parsePlanFile(good, 'p.json', () => ({ key: 'another-key', source: 'env' }));
    expect(other.diagnostics.map((d) => d.code)).toEqual(['planfile.other-key']);
    expect(other.diagnostics[0]!.summary).toBe("p.json was sealed with another key than this apply's DRIFTLESS_FINGERPRINT_KEY");
    expect(other.diagnostics[0]!.detail).toContain('The file says it was sealed with a DRIFTLESS_FINGERPRINT_KEY.');
    expect(JSON.stringify(other.diagnostics)).not.toContain(SEAL_KEY);
    // Sealed without a key (the fallback), read with one: the reader's key decides, and says why.
    const fallback = serializePlanFile(makePlan(), '2026-11-21T00:00:00Z', { key: 'driftless-fallback-fingerprint-key:org-1', source: 'fallback' });
    const mixed = parsePlanFile(fallback, 'p.json', keyOf).diagnostics[0]!;
    expect([mixed.code, mixed.detail]).toEqual(['planfile.other-key', expect.stringContaining('sealed without DRIFTLESS_FINGERPRINT_KEY')]);
    expect(code(good, { apiUrl: 'https://api.example.com' })).toEqual(['planfile.wrong-target']);
    expect(code(good, { organizationId: 'other-org' })).toEqual(['planfile.wrong-target']);
    const d = parsePlanFile('{"kind":"driftless-plan","format_version":"9.0"}', 'p.json', keyOf).diagnostics[0]!;
    expect(d.summary).toBe('p.json has plan format 9.0; this driftless reads format 1.0');
    expect(d.detail).toContain('driftless plan --out');
  });

  it('reports a missing file as a diagnostic', async () => {
    const r = await readPlanFile('/nonexistent/driftless/plan.json', keyOf);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['planfile.unreadable']);
  });

  it('finds objects the plan touches that were edited, deleted or created since, and ignores the others', () => {
    const plan = makePlan();
    expect(findStaleObjects(plan, liveFrom(apiRecords()))).toEqual([]);
    const r = apiRecords();
    r.services[0]!.updated_at = '2026-11-21T09:00:00Z'; // api: replaced with its environment
    r.projects[0]!.updated_at = '2026-11-21T09:00:00Z'; // shop: the parent of the environment
    r.webhooks = []; // untouched by the plan
    r.annotationsGroups[0]!.updated_at = '2026-11-21T09:00:00Z'; // referenced by name
    const stale = findStaleObjects(plan, liveFrom(r));
    expect(stale).toEqual(
      expect.arrayContaining([
        { address: API, planned: '2026-11-01T10:00:00Z', current: '2026-11-21T09:00:00Z' },
        { address: 'project.shop', planned: '2026-11-01T10:00:00Z', current: '2026-11-21T09:00:00Z' },
        { address: 'annotations_group.monitoring', planned: '2026-11-01T10:00:00Z', current: '2026-11-21T09:00:00Z' },
      ]),
    );
    expect(stale).toHaveLength(3);
  });

  it('finds an object created since the plan that the plan meant to create', () => {
    const m = fullManifest();
    const r = apiRecords();
    r.webhooks = [];
    const plan = computePlan(buildGraph(m).graph, liveFrom(r), { fingerprintKey: KEY });
    expect(findStaleObjects(plan, liveFrom(apiRecords()))).toEqual([
      { address: 'webhook.https:%2F%2Fhooks.example.com%2Fdeploy', planned: '(absent)', current: '2026-11-01T10:00:00Z' },
    ]);
  });

  it('looks a renamed object (moved) up at its live address: unchanged is not stale, edited is', () => {
    const m = fullManifest();
    m.projects![0]!.name = 'store';
    m.moved = [{ from: 'project.shop', to: 'project.store' }];
    const built = buildGraph(m);
    expect(built.diagnostics).toEqual([]);
    const plan = computePlan(built.graph, liveFrom(apiRecords()), { fingerprintKey: KEY });
    expect(plan.changes.find((c) => c.address === 'project.store')).toMatchObject({ actions: ['update'], previous_address: 'project.shop' });
    expect(findStaleObjects(plan, liveFrom(apiRecords()))).toEqual([]);
    const r = apiRecords();
    r.projects[0]!.updated_at = '2026-11-21T09:00:00Z';
    expect(findStaleObjects(plan, liveFrom(r))).toContainEqual({ address: 'project.store', planned: '2026-11-01T10:00:00Z', current: '2026-11-21T09:00:00Z' });
  });
});
