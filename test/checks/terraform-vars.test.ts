/**
 * A terraform service's tf_vars against the variables parsed from its repository: unknown keys,
 * missing required variables, sensitive variables not declared sensitive; one parse per
 * repository (url + branch + root_path) per run; no value in any diagnostic.
 */
import { describe, expect, it } from 'vitest';
import { runPlanChecks } from '../../src/checks/index.js';
import { FakePort, ORG_ID, apiError, liveState, lineOf, loadYaml, type Call } from './support.js';

const PARSE = `/organization/${ORG_ID}/parseTerraformVariablesFromGitRepo`;

/** Repositories by url (+ root_path): their variable definitions as the API reports them. */
const REPOS: Record<string, Array<{ key: string; sensitive: boolean; nullable: boolean; default: string | null }>> = {
  'https://github.com/acme/infra.git': [
    { key: 'region', sensitive: false, nullable: true, default: 'eu-west-3' },
    { key: 'api_token', sensitive: true, nullable: false, default: null },
    { key: 'instance_count', sensitive: false, nullable: true, default: '2' },
    { key: 'bucket_name', sensitive: false, nullable: true, default: null },
  ],
  'https://github.com/acme/network.git /modules/vpc': [
    { key: 'cidr_block', sensitive: false, nullable: false, default: '10.0.0.0/16' },
    { key: 'enable_nat', sensitive: false, nullable: true, default: 'false' },
  ],
};

function parseApi(): FakePort {
  return new FakePort((c: Call) => {
    const g = (c.body as { git_repository: { url: string; root_path?: string } }).git_repository;
    const key = g.root_path && g.root_path !== '/' ? `${g.url} ${g.root_path}` : g.url;
    if (c.method !== 'POST' || c.path !== PARSE || !REPOS[key]) throw apiError(400, `git_repository.url: no repository '${g.url}'`);
    return { results: REPOS[key].map((v) => ({ ...v, description: null, source: 'variables.tf' })) };
  });
}

function tf(name: string, lines: string[], repo = 'https://github.com/acme/infra.git', branch = 'main'): string {
  return [
    `          - type: terraform`,
    `            name: ${name}`,
    `            git_repository:`,
    `              url: ${repo}`,
    `              branch: ${branch}`,
    ...lines.map((l) => `            ${l}`),
  ].join('\n');
}

function manifest(services: string[]): string {
  return ['version: 1', 'projects:', '  - name: shop', '    environments:', '      - name: prod', '        cluster: paris', '        services:', ...services].join('\n') + '\n';
}

const LIVE = liveState();

describe('tf_vars of terraform services', () => {
  it('accepts declared variables with every required one set and sensitive ones declared sensitive', async () => {
    const yaml = manifest([tf('infra', ['tf_vars:', '  region: eu-west-1', '  api_token: ${env:TOKEN}', 'sensitive_tf_vars: [api_token]'])]);
    const api = parseApi();
    expect(await runPlanChecks(await loadYaml(yaml, { TOKEN: 'tok-SECRET-1' }), LIVE, api)).toEqual([]);
    expect(api.calls).toEqual([
      // The provider, which the API requires, derived from the URL (issue 19: the real API's shapes).
      { method: 'POST', path: PARSE, body: { git_repository: { url: 'https://github.com/acme/infra.git', branch: 'main', provider: 'GITHUB' } } },
    ]);
  });

  it('refuses an unknown key at its line, naming the declared variables and the nearest', async () => {
    const yaml = manifest([tf('infra', ['tf_vars:', '  regoin: eu-west-1', '  api_token: ${env:TOKEN}', 'sensitive_tf_vars: [api_token]'])]);
    const diags = await runPlanChecks(await loadYaml(yaml, { TOKEN: 'tok-SECRET-1' }), LIVE, parseApi());
    expect(diags).toHaveLength(1);
    expect(diags[0]).toMatchObject({
      severity: 'error',
      code: 'check.tf-var-unknown',
      address: 'project.shop/environment.prod/terraform.infra',
      summary: 'terraform infra: tf_vars sets "regoin", which https://github.com/acme/infra.git (branch main) does not declare',
      range: { file: 'main.yaml', start: { line: lineOf(yaml, 'regoin:') } },
    });
    expect(diags[0]!.detail).toBe('Declared variables: region, api_token, instance_count, bucket_name. Did you mean "region"?');
  });

  it('refuses a missing required variable (non-nullable, no default), a warning only when a tfvars file may set it', async () => {
    const yaml = manifest([tf('infra', ['tf_vars:', '  region: eu-west-1'])]);
    const diags = await runPlanChecks(await loadYaml(yaml), LIVE, parseApi());
    expect(diags).toHaveLength(1);
    expect(diags[0]).toMatchObject({
      severity: 'error',
      code: 'check.tf-var-missing',
      summary: 'terraform infra: https://github.com/acme/infra.git (branch main) requires "api_token" (no default, not nullable), which tf_vars does not set',
      range: { file: 'main.yaml', start: { line: lineOf(yaml, 'tf_vars:') + 1 } },
    });
    // bucket_name has no default but is nullable: not required.
    expect(diags[0]!.summary).not.toContain('bucket_name');

    const withFile = manifest([tf('infra', ['tf_var_file_paths: [prod.tfvars]', 'tf_vars:', '  region: eu-west-1'])]);
    const soft = await runPlanChecks(await loadYaml(withFile), LIVE, parseApi());
    expect(soft.map((d) => [d.severity, d.code])).toEqual([['warning', 'check.tf-var-missing']]);
    expect(soft[0]!.detail).toContain('prod.tfvars');
  });

  it('warns about a sensitive variable not listed in sensitive_tf_vars, without its value', async () => {
    const yaml = manifest([tf('infra', ['tf_vars:', '  api_token: tok-CLEAR-value'])]);
    const diags = await runPlanChecks(await loadYaml(yaml), LIVE, parseApi());
    expect(diags.map((d) => [d.severity, d.code, d.range?.start.line])).toEqual([['warning', 'check.tf-var-sensitive', lineOf(yaml, 'tok-CLEAR-value')]]);
    expect(diags[0]!.detail).toContain('sensitive_tf_vars');
    expect(JSON.stringify(diags)).not.toContain('tok-CLEAR');
  });

  it('parses each repository (url + branch + root path) once per run', async () => {
    const vpc = (name: string, branch: string) => tf(name, ['tf_vars:', '  enable_nat: "true"'], 'https://github.com/acme/network.git', branch).replace('branch: ' + branch, `branch: ${branch}\n              root_path: /modules/vpc`);
    const yaml = manifest([
      tf('a', ['tf_vars:', '  api_token: ${env:TOKEN}', 'sensitive_tf_vars: [api_token]']),
      tf('b', ['tf_vars:', '  api_token: ${env:TOKEN}', '  instance_cnt: "3"', 'sensitive_tf_vars: [api_token]']),
      tf('c', ['tf_vars:', '  api_token: ${env:TOKEN}', 'sensitive_tf_vars: [api_token]'], 'https://github.com/acme/infra.git', 'develop'),
      vpc('d', 'main'),
      vpc('e', 'main'),
    ]);
    const api = parseApi();
    const diags = await runPlanChecks(await loadYaml(yaml, { TOKEN: 'tok-SECRET-2' }), LIVE, api);
    expect(api.requestCount).toBe(3);
    expect(api.calls.map((c) => JSON.stringify((c.body as { git_repository: unknown }).git_repository)).sort()).toEqual([
      '{"url":"https://github.com/acme/infra.git","branch":"develop","provider":"GITHUB"}',
      '{"url":"https://github.com/acme/infra.git","branch":"main","provider":"GITHUB"}',
      '{"url":"https://github.com/acme/network.git","branch":"main","root_path":"/modules/vpc","provider":"GITHUB"}',
    ]);
    expect(diags.map((d) => [d.address, d.code])).toEqual([['project.shop/environment.prod/terraform.b', 'check.tf-var-unknown']]);
    expect(diags[0]!.detail).toContain('Did you mean "instance_count"?');
    expect(JSON.stringify(diags)).not.toContain('tok-SECRET');
  });

  it('warns that it could not check a repository the API cannot read, without credentials from its URL', async () => {
    const yaml = manifest([tf('infra', ['tf_vars:', '  region: eu-west-1'], 'https://bot:ghp-CREDENTIAL@github.com/acme/missing.git')]);
    const api = parseApi();
    const diags = await runPlanChecks(await loadYaml(yaml), LIVE, api);
    expect(api.requestCount).toBe(1);
    expect(diags.map((d) => [d.severity, d.code])).toEqual([['warning', 'check.tf-vars-unchecked']]);
    expect(diags[0]!.summary).toContain('https://***@github.com/acme/missing.git');
    expect(JSON.stringify(diags)).not.toContain('ghp-CREDENTIAL');
  });
});
