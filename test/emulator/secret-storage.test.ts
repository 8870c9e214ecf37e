/**
 * Where the emulator keeps a secret's value. The renderers print `value: null` for every secret, so
 * a value that leaked into the variable record itself would never show in an API answer: this test
 * looks underneath, at the records in memory and at the `--data` files on disk.
 *
 * By design (src/emulator/README.md, "Variables") a secret's value lives only in
 * `state.secretValues`, keyed by the variable's id: the platform keeps it to inject it at run time,
 * and it is the only way the end-to-end tests can check that `apply` wrote the right value. Every
 * other place (the variable records, the rest of the snapshot, the journal lines of other
 * collections) must hold it in no form: plain, base64, base64url or hex.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { startClient, type Client } from './helpers.js';
import { world } from './ops-helpers.js';

let dir: string;
let c: Client | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'driftless-secret-storage-'));
});
afterEach(async () => {
  await c?.em.close();
  c = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Every encoding a value could be hidden under, computed here with Buffer, not by the emulator. */
function encodings(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  return [value, bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex'), bytes.toString('hex').toUpperCase(), JSON.stringify(value).slice(1, -1)];
}

function expectNowhere(haystack: string, values: string[], where: string): void {
  for (const v of values) for (const form of encodings(v)) expect(haystack.includes(form), `${where} holds ${JSON.stringify(form)} (from ${JSON.stringify(v)})`).toBe(false);
}

test('a secret value is kept only in state.secretValues: never in a variable record, in memory or in the --data files', async () => {
  const dataFile = join(dir, 'state.json');
  c = await startClient({ dataFile });
  const w = await world(c);
  const values = {
    projectSecret: 'proj-secret-Aq7!z',
    envSecret: 'env-secret-\u00e9t\u00e9-9x',
    appSecret: 'app-secret-Bq8#y',
    legacySecret: 'legacy-secret-Cr9$w',
    edited: 'edited-secret-Ds0%v',
    override: 'override-secret-Et1^u',
    imported: 'imported-secret-Fu2&t',
  };
  const made: Record<string, string> = {};
  const create = async (name: string, body: Record<string, unknown>) => {
    const r = await c!.post('/variable', body);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.value).toBeNull();
    made[name] = r.body.id;
  };
  await create('projectSecret', { key: 'P_SECRET', value: values.projectSecret, is_secret: true, variable_scope: 'PROJECT', variable_parent_id: w.projectId });
  await create('envSecret', { key: 'E_SECRET', value: values.envSecret, is_secret: true, variable_scope: 'ENVIRONMENT', variable_parent_id: w.envId });
  await create('appSecret', { key: 'A_SECRET', value: 'first-value-replaced', is_secret: true, variable_scope: 'APPLICATION', variable_parent_id: w.app.id });
  const edit = await c.put(`/variable/${made.appSecret}`, { key: 'A_SECRET', value: values.edited });
  expect(edit.status).toBe(200);
  const legacy = await c.post(`/application/${w.app.id}/secret`, { key: 'L_SECRET', value: values.legacySecret });
  expect(legacy.status, JSON.stringify(legacy.body)).toBe(201);
  made.legacySecret = legacy.body.id;
  const override = await c.post(`/application/${w.app.id}/secret/${made.envSecret}/override`, { value: values.override });
  expect(override.status, JSON.stringify(override.body)).toBe(201);
  made.override = override.body.id;
  const imported = await c.post(`/variable/import?service_id=${w.container.id}&service_type=CONTAINER`, { overwrite: false, vars: [{ name: 'I_SECRET', value: values.imported, scope: 'CONTAINER', is_secret: true }] });
  expect(imported.status, JSON.stringify(imported.body)).toBe(201);
  const importedRecord = Object.values(c.em.state.variables).find((v) => v.key === 'I_SECRET');
  expect(importedRecord).toBeDefined();
  made.imported = importedRecord!.id;
  const all = Object.values(values).concat('first-value-replaced');

  // In memory: the records (what every renderer starts from) hold none of the values...
  expectNowhere(JSON.stringify(c.em.state.variables), all, 'state.variables');
  const { secretValues, ...rest } = c.em.state as unknown as Record<string, unknown>;
  expectNowhere(JSON.stringify(rest), all, 'the state outside secretValues');
  // ...and the one store that does holds exactly the current value under the variable's id.
  expect(secretValues).toMatchObject({
    [made.projectSecret]: values.projectSecret,
    [made.envSecret]: values.envSecret,
    [made.appSecret]: values.edited,
    [made.legacySecret]: values.legacySecret,
    [made.override]: values.override,
    [made.imported]: values.imported,
  });
  expect(Object.values(secretValues as Record<string, string>)).not.toContain('first-value-replaced');

  // Through the API, every way of listing: still no value in any form.
  for (const [parent, scope] of [[w.projectId, 'PROJECT'], [w.envId, 'ENVIRONMENT'], [w.app.id, 'APPLICATION'], [w.container.id, 'CONTAINER']]) {
    const r = await c.get(`/variable?parent_id=${parent}&scope=${scope}`);
    expect(r.status).toBe(200);
    expectNowhere(JSON.stringify(r.body), all, `GET /variable (${scope})`);
  }
  expectNowhere(JSON.stringify((await c.get(`/application/${w.app.id}/secret`)).body), all, 'the legacy secret list');

  // On disk: the journal written so far, then the snapshot written at close.
  const journalLines = readFileSync(`${dataFile}.journal`, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { c: string | null; k: string; v?: unknown });
  expect(journalLines.some((e) => e.c === 'variables')).toBe(true);
  expectNowhere(JSON.stringify(journalLines.filter((e) => e.c !== 'secretValues')), all, 'the journal outside secretValues');
  await c.em.close();
  c = undefined;
  const snapshot = JSON.parse(readFileSync(dataFile, 'utf8')) as Record<string, unknown>;
  expect(Object.keys(snapshot.variables as object)).toEqual(expect.arrayContaining(Object.values(made)));
  const { secretValues: persistedSecrets, ...persistedRest } = snapshot;
  expectNowhere(JSON.stringify(persistedRest), all, 'the --data snapshot outside secretValues');
  expect(persistedSecrets).toMatchObject({ [made.appSecret]: values.edited, [made.imported]: values.imported });
});

test('the other write-only values (terraform secrets, chart repository, receiver and webhook credentials) are kept only in their write-only stores', async () => {
  const dataFile = join(dir, 'state.json');
  c = await startClient({ dataFile });
  const w = await world(c);
  const org = c.em.organizationId;
  const values = { tf: 'tf-secret-Gv3*s', helm: 'helm-pass-Hw4(r', slack: 'https://hooks.slack.com/services/T1/B1/Ix5-q', smtp: 'smtp-pass-Jy6)p', hook: 'hook-secret-Kz7_o' };
  const ok = (r: { status: number; body: any }) => {
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    return r.body;
  };
  ok(await c.post(`/environment/${w.envId}/terraform`, {
    name: 'network',
    terraform_files_source: { git_repository: { url: 'https://github.com/acme/infra.git', branch: 'main' } },
    terraform_variables_source: { tf_var_file_paths: [], tf_vars: [{ key: 'region', value: 'eu', secret: false }, { key: 'token', value: values.tf, secret: true }] },
  }));
  ok(await c.post(`/organization/${org}/helmRepository`, { name: 'private-charts', kind: 'OCI_GITHUB_CR', url: 'oci://ghcr.io/acme/charts', skip_tls_verification: false, config: { username: 'ci', password: values.helm } }));
  ok(await c.post('/alert-receivers', { organization_id: org, name: 'ops', description: 'ops', type: 'SLACK', send_resolved: true, webhook_url: values.slack }));
  ok(await c.post('/alert-receivers', { organization_id: org, name: 'mail', description: 'mail', type: 'EMAIL', send_resolved: false, to: 'a@example.com', from: 'b@example.com', smarthost: 'smtp.example.com:587', auth_username: 'u', auth_password: values.smtp, require_tls: true }));
  ok(await c.post(`/organization/${org}/webhook`, { target_url: 'https://ci.example.com/hook', events: ['DEPLOYMENT_STARTED'], target_secret: values.hook }));
  const all = Object.values(values);

  const WRITE_ONLY = ['secretValues', 'alertReceiverSecrets', 'webhookSecrets'];
  const outside = (state: Record<string, unknown>) => JSON.stringify(Object.fromEntries(Object.entries(state).filter(([k]) => !WRITE_ONLY.includes(k))));
  expectNowhere(outside(c.em.state as unknown as Record<string, unknown>), all, 'the state outside the write-only stores');
  // Each is where the emulator needs it: to sign deliveries, to post to the receiver, to pull charts.
  expect(JSON.stringify(WRITE_ONLY.map((k) => (c!.em.state as unknown as Record<string, unknown>)[k]))).toSatisfy((s: string) => all.every((v) => s.includes(JSON.stringify(v).slice(1, -1))));
  await c.em.close();
  c = undefined;
  expectNowhere(outside(JSON.parse(readFileSync(dataFile, 'utf8'))), all, 'the --data snapshot outside the write-only stores');
});
