/**
 * The export guarantee, end to end on the emulator: an organization built by hand through the API
 * with every kind of resource is exported; `plan` on the export changes nothing: the secrets
 * driftless never wrote cannot be known, so the export puts each under `ignore_changes` (plan
 * reports them as ignored, with or without their ${env:} variables set). Both layouts; a
 * project-only export; no secret value anywhere in the output.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runPlan } from '../../src/cli/run-plan.js';
import { planHasChanges } from '../../src/plan/types.js';
import { protectMarksOnly, run, startEmu, tempDir, type Emu } from './helpers.js';
import { manifestSchema, manifestSchemaPath } from '../../src/manifest/index.js';
import { buildOrganizationByHand, type HandBuiltOrg } from './org-fixture.js';

let emu: Emu;
let org: HandBuiltOrg;
const tmp = tempDir('driftless-export-');

/** The export's placeholders set to the values the fixture wrote by hand. */
function secretEnv(): Record<string, string> {
  return {
    SHOP_DB_PASSWORD: org.secrets.DB_PASSWORD!,
    SHOP_PRODUCTION_API_API_TOKEN: org.secrets.API_TOKEN!,
    SHOP_PRODUCTION_API_TLS_KEY: org.secrets.TLS_KEY!,
    SHOP_PRODUCTION_NETWORK_TF_TOKEN: org.secrets.TF_TOKEN!,
    ALERT_RECEIVER_OPS_SLACK_WEBHOOK_URL: org.secrets.SLACK!,
    ALERT_RECEIVER_ONCALL_MAIL_AUTH_PASSWORD: org.secrets.SMTP!,
    WEBHOOK_CI_EXAMPLE_COM_HOOKS_DEPLOY_SECRET: org.secrets.WEBHOOK!,
  };
}

const sessions: Array<{ close(): Promise<void> }> = [];

/**
 * The first line of every exported file, for a file written in `dir`: the relative path from
 * there to this installation's schema, which resolves offline (and before the package is on a
 * registry, where the `$id` URL does not).
 */
const modeline = (dir: string) => {
  const rel = path.relative(dir, manifestSchemaPath());
  return `# yaml-language-server: $schema=${rel.startsWith('.') ? rel : `./${rel}`}`;
};

/** The schema file the modeline of `text`, a file in `dir`, points at: it exists and is the manifest schema. */
function expectModelineResolves(text: string, dir: string) {
  const m = /^# yaml-language-server: \$schema=(\S+)$/.exec(text.split('\n')[0]!);
  expect(m).not.toBeNull();
  const target = path.resolve(dir, m![1]!);
  expect(existsSync(target), target).toBe(true);
  expect(JSON.parse(readFileSync(target, 'utf8')).$id).toBe(manifestSchema().$id);
}

async function plan(paths: string[], env = emu.env(secretEnv())) {
  const r = await runPlan(paths, {}, { env, cwd: tmp.dir });
  if (r.session) sessions.push(r.session);
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return r;
}

beforeAll(async () => {
  emu = await startEmu();
  org = await buildOrganizationByHand(emu);
}, 60_000);

afterAll(async () => {
  for (const s of sessions) await s.close();
  await emu.close();
  tmp.cleanup();
});

describe('driftless export', () => {
  it('writes one file whose plan is clean, the secrets driftless never wrote under ignore_changes, with or without their variables', async () => {
    const file = path.join(tmp.dir, 'org.yaml');
    const exp = await run(['export', '--out', file], emu.env());
    expect(exp.code).toBe(0);
    expect(exp.stdout).toBe('');
    // List endpoints only: the organization and 8 organization-level lists, 1 per project, 3 per
    // environment (services, stages, statuses), 1 variable list per service holding variables
    // (databases have none).
    const requests = Number(/in (\d+) API requests/.exec(exp.stderr)?.[1]);
    expect(requests).toBeLessThanOrEqual(9 + 1 + 3 * 2 + 9);
    // The variables to set are listed on stderr, names only.
    for (const name of Object.keys(secretEnv())) expect(exp.stderr).toContain(name);
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n')[0]).toBe(modeline(path.dirname(file)));
    expectModelineResolves(text, path.dirname(file));
    // A helm chart names its repository (made by hand, not a default one), as a manifest does.
    expect(text).toMatch(/name: cache\n(?:.*\n)*?\s+source:\n\s+helm_repository:\n\s+repository: acme-charts\n\s+chart_name: redis\n\s+chart_version: "?19\.0\.0"?\n/);
    for (const value of Object.values(org.secrets)) {
      expect(text).not.toContain(value);
      expect(exp.stderr).not.toContain(value);
    }
    // Names, not UUIDs (the secret manager access id of an external secret is the only id a manifest holds).
    expect(text.replaceAll('5b0f5c8e-2d0a-4b7e-9a3c-1f2e3d4c5b6a', '')).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);

    // Their values cannot be known (the API never returns them, and no fingerprint of driftless's
    // says what they hold): each is ignored, never written over, and its variable is optional.
    for (const env of [emu.env(secretEnv()), emu.env()]) {
      const first = await plan([file], env);
      // Nothing but the protect mark the export puts on its database (issue 18), not recorded yet.
      expect(protectMarksOnly(first.plan!)).toEqual(['project.shop/environment.production/database.orders-db']);
      const ignored = first.plan!.changes.filter((c) => c.ignored).map((c) => `${c.address} ${c.ignored!.join(',')}`).sort();
      expect(ignored).toEqual(
        [
          'alert_receiver.oncall-mail auth_password',
          'alert_receiver.ops-slack webhook_url',
          'project.shop/environment.production/application.api/variable.API_TOKEN value',
          'project.shop/environment.production/application.api/variable.TLS_KEY value',
          'project.shop/environment.production/terraform.network tf_vars',
          'project.shop/variable.DB_PASSWORD value',
          'webhook.https:%2F%2Fci.example.com%2Fhooks%2Fdeploy secret',
        ].sort(),
      );
      expect(first.plan!.ignored_fields).toBe(7);
      expect(first.plan!.changes.filter((c) => c.secrets_not_compared)).toEqual([]);
    }
  }, 60_000);

  it('the directory layout gives organization.yaml, one file per project and one per environment, and plans like the single file', async () => {
    const dir = path.join(tmp.dir, 'exported');
    const exp = await run(['export', '--out', dir, '--layout', 'directory'], emu.env());
    expect(exp.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['organization.yaml', 'project-shop.production.yaml', 'project-shop.staging.yaml', 'project-shop.yaml']);
    for (const f of readdirSync(dir)) {
      expect(readFileSync(path.join(dir, f), 'utf8').split('\n')[0], f).toBe(modeline(dir));
      expectModelineResolves(readFileSync(path.join(dir, f), 'utf8'), dir);
    }
    expect(exp.stderr).not.toContain('warning');
    // The project's own file holds its attributes and variables, not its environments; each
    // environment's file holds that environment whole, under the project's name only.
    const own = parse(readFileSync(path.join(dir, 'project-shop.yaml'), 'utf8'));
    expect(own.projects).toHaveLength(1);
    expect(Object.keys(own.projects[0]).sort()).toEqual(expect.arrayContaining(['name', 'variables']));
    expect(own.projects[0].environments).toBeUndefined();
    const staging = parse(readFileSync(path.join(dir, 'project-shop.staging.yaml'), 'utf8'));
    expect(Object.keys(staging.projects[0])).toEqual(['name', 'environments']);
    expect(staging.projects[0].environments.map((e: { name: string }) => e.name)).toEqual(['staging']);
    expect(staging.projects[0].environments[0].cluster).toEqual(expect.any(String));

    // An export never replaces a manifest silently: refused, before any request, and nothing changed.
    const before = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]));
    writeFileSync(path.join(dir, 'project-shop.yaml'), before['project-shop.yaml'] + '# edited by hand\n');
    const again = await run(['export', '--out', dir, '--layout', 'directory'], emu.env());
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${dir} already holds a manifest (organization.yaml, project-shop.production.yaml, project-shop.staging.yaml, project-shop.yaml); nothing was written`);
    expect(again.stderr).toContain('--overwrite');
    expect(readFileSync(path.join(dir, 'project-shop.yaml'), 'utf8')).toContain('# edited by hand');
    // --overwrite replaces what it writes; a file left from an earlier export is pointed out, not deleted.
    writeFileSync(path.join(dir, 'project-gone.yaml'), 'version: 1\n');
    const replaced = await run(['export', '--out', dir, '--layout', 'directory', '--overwrite'], emu.env());
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stderr).toContain('also holds project-gone.yaml');
    expect(readFileSync(path.join(dir, 'project-shop.yaml'), 'utf8')).toBe(before['project-shop.yaml']);
    rmSync(path.join(dir, 'project-gone.yaml'));
    // The unknown secrets are under ignore_changes in this layout too: the plan is clean.
    const r = await plan([dir]);
    expect(protectMarksOnly(r.plan!)).toEqual(['project.shop/environment.production/database.orders-db']);
    expect(r.plan!.changes.filter((c) => c.status === 'unmanaged')).toEqual([]);
  }, 30_000);

  it('never replaces an existing file of the file layout without --overwrite', async () => {
    const file = path.join(tmp.dir, 'kept.yaml');
    writeFileSync(file, '# mine\n');
    const refused = await run(['export', '--out', file], emu.env());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${file} already holds a file; nothing was written`);
    expect(readFileSync(file, 'utf8')).toBe('# mine\n');
    // --layout takes its value in any letter case, as every choice does.
    const replaced = await run(['export', '--out', file, '--overwrite', '--layout', 'File'], emu.env());
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(readFileSync(file, 'utf8').split('\n')[0]).toBe(modeline(tmp.dir));
  });

  it('needs only a Read token', async () => {
    const exp = await run(['export'], emu.env({}, 'READ'));
    expect(exp.code, exp.stderr).toBe(0);
    expect(exp.stdout).toContain('name: shop');
  });

  it('prints to stdout by default; a project-only export carries the groups its services use and no organization-level objects', async () => {
    const exp = await run(['export', '--project', 'shop', '--environment', 'staging'], emu.env());
    expect(exp.code).toBe(0);
    // On stdout: relative to the working directory (where `> file.yaml` puts it).
    expect(exp.stdout.split('\n')[0]).toBe(modeline(process.cwd()));
    expectModelineResolves(exp.stdout, process.cwd());
    expect(exp.stdout).toContain('name: staging');
    expect(exp.stdout).not.toContain('name: production');
    expect(exp.stdout).not.toContain('alert_rules:');
    expect(exp.stdout).not.toContain('organization:');
    const file = path.join(tmp.dir, 'staging.yaml');
    writeFileSync(file, exp.stdout);
    const r = await plan([file]);
    expect(r.plan!.changes.filter((c) => c.actions[0] !== 'no-op' || c.deploy)).toEqual([]);
  }, 30_000);

  it('explains a bad scope or a missing configuration without a stack trace', async () => {
    const missing = await run(['export', '--project', 'nope'], emu.env());
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('project "nope" does not exist');
    expect(missing.stderr).toContain('shop');
    const noToken = await run(['export'], { DRIFTLESS_API_URL: emu.em.url });
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('DRIFTLESS_API_TOKEN');
    const wrongOrg = await run(['export', '--organization', 'Other'], emu.env());
    expect(wrongOrg.code).toBe(1);
    expect(wrongOrg.stderr).toContain('belongs to organization "Acme"');
    const dirNoOut = await run(['export', '--layout', 'directory'], emu.env());
    expect(dirNoOut.code).toBe(1);
    expect(dirNoOut.stderr).toContain('--layout directory needs --out DIR');
    for (const r of [missing, noToken, wrongOrg, dirNoOut]) expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
