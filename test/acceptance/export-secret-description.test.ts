/**
 * Acceptance: a secret made in the console with a description longer than a fingerprinted secret
 * can keep (driftless appends its marker; the API allows 255 characters). The export used to give a
 * manifest whose plan stopped with an error; now the export shortens the description (saying so
 * on stderr), the plan lists the secret once, and after one apply the plan is clean.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startEmu, tempDir, waitForDeployments, type Emu } from '../export/helpers.js';

let emu: Emu;
const tmp = tempDir('driftless-acceptance-');
const description = 'Rotated every quarter by the platform team; ask #platform before changing. '.repeat(4).slice(0, 250);

beforeAll(async () => {
  emu = await startEmu();
  const { api } = emu;
  const org = emu.em.organizationId;
  const project = await api('POST', `/organization/${org}/project`, { name: 'Secrets' });
  await api('POST', '/variable', { key: 'TOKEN', value: 'tok-0123', is_secret: true, description, variable_scope: 'PROJECT', variable_parent_id: project.id });
  const clusters = (await api('GET', `/organization/${org}/cluster`)).results as any[];
  const env = await api('POST', `/project/${project.id}/environment`, { name: 'prod', mode: 'PRODUCTION', cluster_id: clusters[0].id });
  await api('POST', `/environment/${env.id}/terraform`, {
    name: 'infra', description, terraform_files_source: { git_repository: { url: 'https://github.com/acme/infra.git', branch: 'main' } },
    terraform_variables_source: { tf_var_file_paths: [], tf_vars: [{ key: 'api_token', value: 'tf-0123', secret: true }] },
    engine: 'TERRAFORM', provider_version: { read_from_terraform_block: true, explicit_version: '1.5.0' }, job_resources: { cpu_milli: 1000, ram_mib: 1024, gpu: 0, storage_gib: 20 },
    backend: { kubernetes: {} }, auto_deploy_config: { auto_deploy: false, terraform_action: 'DEFAULT' }, timeout_sec: 1800,
  });
  await api('POST', `/environment/${env.id}/deploy`);
  await waitForDeployments(emu, [env.id]);
  await api('POST', `/organization/${org}/webhook`, { kind: 'STANDARD', target_url: 'https://ci.example.com/hook', events: ['DEPLOYMENT_FAILED'], enabled: true, target_secret: 'hook-0123', description });
  await api('POST', '/alert-receivers', { organization_id: org, name: 'ops', description, type: 'SLACK', send_resolved: true, webhook_url: 'https://hooks.slack.com/services/T0/B0/x0123' });
}, 30_000);

afterAll(async () => {
  await emu.close();
  tmp.cleanup();
});

describe('export of secrets (variable, webhook, receiver, terraform) whose description leaves no room for the fingerprint', () => {
  it('plans nothing as exported (the secrets are ignored); taken over, plans each secret once, applies, then plans clean', async () => {
    const file = path.join(tmp.dir, 'org.yaml');
    const exp = await run(['export', '--out', file], emu.env());
    expect(exp.code, exp.stderr).toBe(0);
    expect(exp.stderr).toContain('shortened');
    for (const s of ['tok-0123', 'hook-0123', 'x0123', 'tf-0123']) expect(readFileSync(file, 'utf8') + exp.stderr).not.toContain(s);
    const env = emu.env({ SECRETS_TOKEN: 'tok-0123', WEBHOOK_CI_EXAMPLE_COM_HOOK_SECRET: 'hook-0123', ALERT_RECEIVER_OPS_WEBHOOK_URL: 'https://hooks.slack.com/services/T0/B0/x0123', SECRETS_PROD_INFRA_TF_API_TOKEN: 'tf-0123' });
    const adopted = await run(['plan', file, '--detailed-exitcode'], env);
    expect(adopted.code, adopted.stdout + adopted.stderr).toBe(0);
    // The team takes the secrets over: without their ignore_changes, each is written once (with its
    // fingerprint marker, which the shortened description leaves room for).
    const text = readFileSync(file, 'utf8');
    const taken = text.replace(/^[ ]*ignore_changes:(?: \[.*\])?\n(?:[ ]*- .*\n)*/gm, '');
    expect(text.length - taken.length).toBeGreaterThan(0);
    expect(taken).not.toMatch(/^[ -]*ignore_changes:/m);
    writeFileSync(file, taken);
    const plan = await run(['plan', file, '--format', 'json'], env);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const changed = JSON.parse(plan.stdout).resource_changes.filter((c: any) => c.change.actions[0] !== 'no-op').map((c: any) => c.address);
    expect(changed.sort()).toEqual(['alert_receiver.ops', 'project.Secrets/environment.prod/terraform.infra', 'project.Secrets/variable.TOKEN', 'webhook.https:%2F%2Fci.example.com%2Fhook']);
    const applied = await run(['apply', file, '--auto-approve'], env);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const again = await run(['plan', file, '--detailed-exitcode'], env);
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });
});
