/**
 * `plan --no-secret-values` (issue 12, "Plans without secret values"), against the emulator: both
 * examples plan with no secret in the environment, secrets show as "not compared" while everything
 * else is planned as usual, no secret value is read or shown, and a plan file written this way is
 * refused by `apply` before any request -- also when the flag was edited out of the sealed file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { FAST, startHarness, type Harness, WARM_CACHE } from './helpers.js';
import { copyRealistic, secretEnv } from '../support/realistic.js';
import { cpSync } from 'node:fs';
import { resolve } from 'node:path';

const SECRET_NAMES = ['STRIPE_API_KEY', 'SESSION_SECRET', 'SLACK_WEBHOOK_URL', 'WEBHOOK_SIGNING_SECRET'];
/** The live records of examples/realistic that hold a secret, and the secret each holds. */
const REALISTIC_SECRETS: Record<string, string[]> = {
  'alert_receiver.shop-oncall': ['webhook_url'],
  'webhook.https:%2F%2Fci.example.com%2Fhooks%2Fdeployments': ['target_secret'],
  'project.shop/variable.STRIPE_API_KEY': ['value'],
  'project.shop/environment.production/application.api/variable.SESSION_SECRET': ['value'],
};

/** stderr without the request-usage line every API command ends with: what is left is a diagnostic. */
// The closing usage line, and with a warm cache (npm run test:warm) the line saying why a run read everything.
const diagnosticsOf = (stderr: string) => stderr.replace(/^\d+ API requests?\b[^\n]*\n/gm, '').replace(WARM_CACHE ? /^Full read of the live state: [^\n]*\n/gm : /(?!)/g, '');

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Requests the emulator answered for the admin token between two calls (each call is one request itself). */
async function remaining(): Promise<number> {
  const res = await fetch(`${h.emu.url}/organization`, { headers: { Authorization: `Token ${h.env.DRIFTLESS_API_TOKEN}` } });
  await res.arrayBuffer();
  return Number(res.headers.get('x-ratelimit-remaining'));
}

function copyMinimal(): string {
  cpSync(resolve(import.meta.dirname, '../../examples/minimal'), join(h.dir, 'minimal'), { recursive: true });
  return 'minimal';
}

interface JsonChange {
  address: string;
  change: { actions: string[]; after_sensitive: Record<string, boolean> | false; secret_not_compared?: string[] };
}

const actionsOf = (doc: { resource_changes: JsonChange[] }) => Object.fromEntries(doc.resource_changes.map((c) => [c.address, c.change.actions]));

describe('plan --no-secret-values', () => {
  it('plans examples/realistic on an empty organization with no secret set: the creates as usual, exit 0', async () => {
    h = await startHarness();
    const dir = copyRealistic(h);
    const withSecrets = await h.run(['plan', dir, '--format', 'json'], { env: secretEnv() });
    expect(withSecrets.code).toBe(0);
    const r = await h.run(['plan', dir, '--no-secret-values', '--format', 'json']);
    expect(r.stderr).not.toMatch(/STRIPE_API_KEY|SESSION_SECRET|SLACK_WEBHOOK_URL|WEBHOOK_SIGNING_SECRET/);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    const full = JSON.parse(withSecrets.stdout);
    // Everything is planned as with the secrets: the same resources, the same actions.
    expect(actionsOf(doc)).toEqual(actionsOf(full));
    expect(doc.summary).toEqual(full.summary);
    expect(doc.summary.add).toBeGreaterThan(10);
    expect(doc.options.no_secret_values).toBe(true);
    expect(doc.applyable).toBe(false);
    expect(full.applyable).toBe(true);
    // A secret that does not exist live is still created; its value is marked as not read.
    const stripe = doc.resource_changes.find((c: JsonChange) => c.address === 'project.shop/variable.STRIPE_API_KEY');
    expect(stripe.change.actions).toEqual(['create']);
    expect(stripe.change.after_sensitive).toEqual({ value: true });
    expect(stripe.change.secret_not_compared).toEqual(['value']);
    // Its sibling that draws the planned actions needs no secret either.
    const graph = await h.run(['graph', dir, '--no-secret-values', '--format', 'mermaid']);
    expect(diagnosticsOf(graph.stderr)).toBe('');
    expect(graph.code).toBe(0);
    expect(graph.stdout).toContain('flowchart');
    expect((await h.run(['graph', dir])).code).toBe(1);
  });

  it('after an apply with the secrets: the secrets are "not compared" (human, markdown, JSON), other changes show normally', async () => {
    h = await startHarness();
    const dir = copyRealistic(h);
    const secrets = secretEnv();
    expect((await h.run(['apply', dir, '--auto-approve', ...FAST], { env: secrets })).code).toBe(0);

    const human = await h.run(['plan', dir, '--no-secret-values']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('Secrets not compared (their values were not read: --no-secret-values):');
    for (const [address, fields] of Object.entries(REALISTIC_SECRETS)) expect(human.stdout).toContain(`? ${address}: ${fields.join(', ')}`);
    expect(human.stdout).toContain('Planned with --no-secret-values: no secret value was read, 4 secrets of live records not compared; this plan cannot be applied (apply re-plans with the secrets).');
    expect(human.stdout).toContain('No changes.');

    const json = JSON.parse((await h.run(['plan', dir, '--no-secret-values', '--format', 'json'])).stdout);
    const notCompared = json.resource_changes.filter((c: JsonChange) => c.change.secret_not_compared);
    expect(notCompared.map((c: JsonChange) => c.address).sort()).toEqual(Object.keys(REALISTIC_SECRETS).sort());
    for (const c of notCompared) {
      // Neither a change nor a no-change of the secret: the record's other fields are in sync.
      expect(c.change.actions).toEqual(['no-op']);
      expect(Object.values(c.change.after_sensitive).every((v) => v === true)).toBe(true);
    }

    const md = await h.run(['plan', dir, '--no-secret-values', '--format', 'markdown']);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('> [!NOTE]');
    expect(md.stdout).toContain('`project.shop/variable.STRIPE_API_KEY`: value not compared');
    // The pull-request comment's first part carries the note too.
    expect((await h.run(['plan', dir, '--no-secret-values', '--format', 'markdown', '--split-dir', 'parts'])).code).toBe(0);
    expect(readFileSync(join(h.dir, 'parts', 'part-1.md'), 'utf8')).toContain('`project.shop/variable.STRIPE_API_KEY`: value not compared');

    // A change of a plain field next to the secrets is planned as usual.
    const shop = join(h.dir, dir, 'shop.yaml');
    writeFileSync(shop, readFileSync(shop, 'utf8').replace('description: Stripe secret key\n', 'description: Stripe secret key, rotated yearly\n'));
    const changed = JSON.parse((await h.run(['plan', dir, '--no-secret-values', '--format', 'json'])).stdout);
    const stripe = changed.resource_changes.find((c: JsonChange) => c.address === 'project.shop/variable.STRIPE_API_KEY');
    expect(stripe.change.actions).toEqual(['update']);
    expect(stripe.change.changed_fields).toEqual(['description']);
    expect(stripe.change.secret_not_compared).toEqual(['value']);
    expect(changed.summary.change).toBe(1);

    for (const out of [human.stdout, human.stderr, md.stdout, JSON.stringify(json)]) for (const v of Object.values(secrets)) expect(out).not.toContain(v);
  });

  it('plans examples/minimal with no secret set, on an empty and on an applied organization', async () => {
    h = await startHarness();
    const dir = copyMinimal();
    // Not even the fingerprint key (a CI secret too): no fingerprint is computed without secret values.
    const noKey = { DRIFTLESS_FINGERPRINT_KEY: undefined as unknown as string };
    const empty = await h.run(['plan', dir, '--no-secret-values'], { env: noKey });
    expect(diagnosticsOf(empty.stderr)).toBe('');
    expect(empty.code).toBe(0);
    expect(empty.stdout).toMatch(/Plan: 3 to add, 0 to change, 0 to destroy, 1 to deploy\./);
    expect((await h.run(['apply', dir, '--auto-approve', ...FAST])).code).toBe(0);
    const applied = await h.run(['plan', dir, '--no-secret-values']);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('No changes.');
    expect(applied.stdout).toContain('Planned with --no-secret-values: no secret value was read; this plan cannot be applied (apply re-plans with the secrets).');
  });

  it('reads no secret: not one of their environment variables, not a secret file', async () => {
    h = await startHarness();
    const dir = copyRealistic(h);
    // A secret file whose file does not exist: without --no-secret-values the plan cannot read it.
    const shop = join(h.dir, dir, 'shop.yaml');
    writeFileSync(shop, readFileSync(shop, 'utf8').replace('description: Stripe secret key\n', 'description: Stripe secret key\n      - key: TLS_KEY\n        secret: true\n        value: ${file:files/absent-tls.key}\n'));
    const read = new Set<string>();
    const secrets = secretEnv();
    // Every secret IS set here: the environment records which names are looked up.
    const env = new Proxy({ ...h.env, ...secrets }, {
      get(target, name) {
        if (typeof name === 'string') read.add(name);
        return Reflect.get(target, name);
      },
    });
    let stdout = '';
    let stderr = '';
    const io: CliIO = { stdout: { write: (s: string) => ((stdout += s), true), isTTY: false }, stderr: { write: (s: string) => ((stderr += s), true), isTTY: false }, env, cwd: h.dir };
    const code = await main(['plan', dir, '--no-secret-values', '--out', 'pr.plan'], io);
    // Never a hint to apply it.
    expect(diagnosticsOf(stderr)).toBe('\nSaved the plan to pr.plan for review (`driftless show pr.plan`): planned with --no-secret-values, apply refuses it; re-plan with the secrets to apply.\n');
    expect(code).toBe(0);
    expect([...read].filter((n) => SECRET_NAMES.includes(n))).toEqual([]);
    expect(read.has('DRIFTLESS_API_URL')).toBe(true);
    const file = readFileSync(join(h.dir, 'pr.plan'), 'utf8');
    for (const v of Object.values(secrets)) for (const out of [stdout, stderr, file]) expect(out).not.toContain(v);
    // The same manifest with the values read fails on the missing file: it was not opened above.
    const withSecrets = await h.run(['plan', dir], { env: secrets });
    expect(withSecrets.code).toBe(1);
    expect(withSecrets.stderr).toContain('files/absent-tls.key');
  });

  it('still needs the ${env:} values of fields that are not secret, and names them', async () => {
    h = await startHarness();
    h.write({
      'm/main.yaml': [
        'version: 1',
        'projects:',
        '  - name: p',
        '    description: ${env:PROJECT_DESCRIPTION}',
        '    variables:',
        '      - key: TOKEN',
        '        secret: true',
        '        value: ${env:API_SECRET}',
        '',
      ].join('\n'),
    });
    const r = await h.run(['plan', 'm', '--no-secret-values']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('environment variable `PROJECT_DESCRIPTION` is not set');
    expect(r.stderr).toContain('--no-secret-values leaves out only the values of secret fields; this field is not secret');
    expect(r.stderr).not.toContain('API_SECRET');
    const ok = await h.run(['plan', 'm', '--no-secret-values'], { env: { PROJECT_DESCRIPTION: 'shop' } });
    expect(ok.code).toBe(0);
  });

  it('its plan file is refused by apply before any request, and nothing is written', async () => {
    h = await startHarness();
    const dir = copyRealistic(h);
    const p = await h.run(['plan', dir, '--no-secret-values', '--out', 'pr.plan']);
    expect(p.code).toBe(0);
    // It can be reviewed: show prints it as plan did.
    const shown = await h.run(['show', 'pr.plan']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe(p.stdout);
    expect(shown.stdout).toContain('Planned with --no-secret-values');
    const before = JSON.stringify(h.emu.state);
    const r0 = await remaining();
    const a = await h.run(['apply', 'pr.plan', ...FAST], { env: secretEnv() });
    const r1 = await remaining();
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('pr.plan was planned with --no-secret-values: re-plan with the secrets');
    expect(r0 - r1).toBe(1); // the second probe only: apply made no request
    expect(JSON.stringify(h.emu.state)).toBe(before);
    expect(a.stdout).not.toContain('Apply complete');
  });

  it('a plan file whose --no-secret-values flag was edited out is refused by its seal, and nothing is written', async () => {
    h = await startHarness();
    const dir = copyRealistic(h);
    expect((await h.run(['plan', dir, '--no-secret-values', '--out', 'pr.plan'])).code).toBe(0);
    const path = join(h.dir, 'pr.plan');
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    expect(doc.plan.options.no_secret_values).toBe(true);
    delete doc.plan.options.no_secret_values;
    doc.plan.applyable = true;
    writeFileSync(path, JSON.stringify(doc, null, 2));
    const before = JSON.stringify(h.emu.state);
    const r0 = await remaining();
    const a = await h.run(['apply', 'pr.plan', ...FAST], { env: secretEnv() });
    const r1 = await remaining();
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('pr.plan was edited after it was written: its content does not match its seal');
    expect(r0 - r1).toBe(1);
    expect(JSON.stringify(h.emu.state)).toBe(before);
  });

  it('drift --no-secret-values: no secret set, the secrets listed as not compared, a plain difference still drift', async () => {
    h = await startHarness();
    const dir = copyRealistic(h);
    const secrets = secretEnv();
    expect((await h.run(['apply', dir, '--auto-approve', ...FAST], { env: secrets })).code).toBe(0);
    const inSync = await h.run(['drift', dir, '--no-secret-values']);
    expect(diagnosticsOf(inSync.stderr)).toBe('');
    expect(inSync.code).toBe(0);
    expect(inSync.stdout).toContain('No drift.');
    expect(inSync.stdout).toContain('4 secrets not compared (--no-secret-values: their values were not read: ');
    const inSyncMd = await h.run(['drift', dir, '--no-secret-values', '--format', 'markdown']);
    expect(inSyncMd.code).toBe(0);
    expect(inSyncMd.stdout).toContain('**4 secrets not compared** (`--no-secret-values`: their values were not read): ');
    expect(inSyncMd.stdout).toContain('`project.shop/variable.STRIPE_API_KEY`');
    const json = JSON.parse((await h.run(['drift', dir, '--no-secret-values', '--format', 'json'])).stdout);
    expect(json.in_sync).toBe(true);
    expect(json.secrets_not_compared.map((x: { address: string }) => x.address).sort()).toEqual(Object.keys(REALISTIC_SECRETS).sort());
    // Without the flag the report has no such list (and needs the secrets).
    expect(JSON.parse((await h.run(['drift', dir, '--format', 'json'], { env: secrets })).stdout)).not.toHaveProperty('secrets_not_compared');
    const shop = join(h.dir, dir, 'shop.yaml');
    writeFileSync(shop, readFileSync(shop, 'utf8').replace('description: Stripe secret key\n', 'description: Stripe secret key, rotated yearly\n'));
    const drifted = await h.run(['drift', dir, '--no-secret-values']);
    expect(drifted.code).toBe(2);
    expect(drifted.stdout).toContain('~ project.shop/variable.STRIPE_API_KEY');
    expect(drifted.stdout).toContain('description: live "Stripe secret key", Git "Stripe secret key, rotated yearly"');
    expect(drifted.stdout).toContain('4 secrets not compared');
    const md = await h.run(['drift', dir, '--no-secret-values', '--format', 'markdown']);
    expect(md.code).toBe(2);
    expect(md.stdout).toContain('**4 secrets not compared** (`--no-secret-values`: their values were not read) (listed in the JSON report).');
    for (const out of [inSync.stdout, drifted.stdout, JSON.stringify(json)]) for (const v of Object.values(secrets)) expect(out).not.toContain(v);
  });

  it('a secret removed from the manifest is still deleted where its scope prunes, and one missing live is still created', async () => {
    h = await startHarness();
    const dir = copyRealistic(h);
    expect((await h.run(['apply', dir, '--auto-approve', ...FAST], { env: secretEnv() })).code).toBe(0);
    const shop = join(h.dir, dir, 'shop.yaml');
    const text = readFileSync(shop, 'utf8');
    const stripe = '      - key: STRIPE_API_KEY\n        value: ${env:STRIPE_API_KEY}\n        secret: true\n        description: Stripe secret key\n';
    expect(text).toContain(stripe);
    const added = '      - key: PAYPAL_SECRET\n        value: ${env:PAYPAL_SECRET}\n        secret: true\n';
    writeFileSync(shop, text.replace(stripe, added).replace('    environments:\n', '    prune:\n      variables: true\n    environments:\n'));
    const r = await h.run(['plan', dir, '--no-secret-values', '--format', 'json']);
    expect(diagnosticsOf(r.stderr)).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    const byAddress = new Map<string, JsonChange>(doc.resource_changes.map((c: JsonChange) => [c.address, c]));
    expect(byAddress.get('project.shop/variable.STRIPE_API_KEY')!.change.actions).toEqual(['delete']);
    expect(byAddress.get('project.shop/variable.PAYPAL_SECRET')!.change.actions).toEqual(['create']);
    expect(byAddress.get('project.shop/variable.PAYPAL_SECRET')!.change.secret_not_compared).toEqual(['value']);
    expect(doc.summary).toMatchObject({ add: 1, change: 0, destroy: 1 });
  });
});
