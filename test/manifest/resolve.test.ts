import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSecretValue, isUnreadSecret, SecretValue } from '../../src/model/secret.js';
import { renderDiagnosticsGithub, renderDiagnosticsHuman } from '../../src/diag/render.js';
import { load, tempTree } from './helpers.js';

const projectVars = (vars: string) => `version: 1
projects:
  - name: shop
    variables:
${vars}`;

describe('${env:NAME}', () => {
  it('resolves a whole value and a value with text around the reference', async () => {
    const dir = tempTree({ 'm.yaml': projectVars(`      - {key: A, value: "\${env:HOST}"}\n      - {key: B, value: "postgres://\${env:HOST}:5432/app"}\n      - {key: C, value: "literal $\${env:HOST}"}\n`) });
    const r = await load(dir, ['m.yaml'], { env: { HOST: 'db.internal' } });
    expect(r.diagnostics).toEqual([]);
    expect(r.manifest!.projects![0]!.variables!.map((v) => v.value)).toEqual(['db.internal', 'postgres://db.internal:5432/app', 'literal ${env:HOST}']);
  });

  it('reports a missing variable at the reference itself', async () => {
    const dir = tempTree({ 'm.yaml': projectVars(`      - key: A\n        value: "prefix-\${env:NOT_SET}"\n`) });
    const r = await load(dir, ['m.yaml'], { env: {} });
    expect(r.manifest).toBeUndefined();
    expect(r.diagnostics).toMatchObject([
      {
        code: 'ref.env-missing',
        summary: 'environment variable `NOT_SET` is not set',
        range: { file: 'm.yaml', start: { line: 6, col: 24 }, end: { line: 6, col: 38 } },
        excerpt: '        value: "prefix-${env:NOT_SET}"\n                       ^~~~~~~~~~~~~~',
      },
    ]);
  });

  it('takes a value from the environment literally: a reference inside it is not expanded again', async () => {
    const dir = tempTree({ 'm.yaml': projectVars(`      - {key: A, value: "\${env:INJECT}"}\n`), 'secret.txt': 'file content' });
    const r = await load(dir, ['m.yaml'], { env: { INJECT: '${file:secret.txt}' } });
    expect(r.diagnostics).toEqual([]);
    expect(r.manifest!.projects![0]!.variables![0]!.value).toBe('${file:secret.txt}');
  });

  it('finds only real environment variables, not object properties', async () => {
    const dir = tempTree({ 'm.yaml': projectVars(`      - {key: A, value: "\${env:constructor}"}\n      - {key: B, value: "\${env:__proto__}"}\n`) });
    const r = await load(dir, ['m.yaml'], { env: {} });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['ref.env-missing', 'ref.env-missing']);
  });

  it('refuses a reference without its closing brace instead of sending it as text', async () => {
    const dir = tempTree({ 'm.yaml': projectVars(`      - {key: A, value: "pre $\${ok} \${env:DB_PASSWORD", secret: true}\n`) });
    const r = await load(dir, ['m.yaml'], { env: { DB_PASSWORD: 'x' } });
    expect(r.manifest).toBeUndefined();
    expect(r.diagnostics).toMatchObject([{ code: 'ref.unterminated', summary: '`${env:DB_PASSWORD` is missing its closing brace', range: { start: { line: 5, col: 37 } } }]);
  });

  it('refuses a variable that is set but empty, naming it at the reference (an unconfigured CI secret)', async () => {
    const dir = tempTree({ 'm.yaml': projectVars(`      - {key: A, value: "\${env:API_KEY}", secret: true}\n`) });
    const r = await load(dir, ['m.yaml'], { env: { API_KEY: '' } });
    expect(r.manifest).toBeUndefined();
    expect(r.diagnostics).toMatchObject([{ severity: 'error', code: 'ref.env-empty', summary: 'environment variable `API_KEY` is set but empty', range: { file: 'm.yaml', start: { line: 5, col: 26 } } }]);
    expect(r.diagnostics[0]!.detail).toContain('${env:API_KEY:-}');
  });

  it('takes the default of ${env:NAME:-default} when NAME is unset or empty, and the value when it is set', async () => {
    const vars = `      - {key: A, value: "\${env:LEVEL:-info}"}\n      - {key: B, value: "x\${env:EMPTY_OK:-}y"}\n      - {key: C, value: "\${env:URL:-http://a:b@c/}"}\n`;
    const dir = tempTree({ 'm.yaml': projectVars(vars) });
    const values = async (env: Record<string, string>) => {
      const r = await load(dir, ['m.yaml'], { env });
      expect(r.diagnostics).toEqual([]);
      return r.manifest!.projects![0]!.variables!.map((v) => v.value);
    };
    expect(await values({})).toEqual(['info', 'xy', 'http://a:b@c/']);
    expect(await values({ LEVEL: '', EMPTY_OK: '' })).toEqual(['info', 'xy', 'http://a:b@c/']);
    expect(await values({ LEVEL: 'debug', EMPTY_OK: 'z', URL: 'u' })).toEqual(['debug', 'xzy', 'u']);
  });

  it('accepts ${env:NAME:-} as an intentionally empty secret, with no warning', async () => {
    const dir = tempTree({ 'm.yaml': projectVars(`      - {key: A, value: "\${env:OPTIONAL_TOKEN:-}", secret: true}\n`) });
    const r = await load(dir, ['m.yaml'], { env: {} });
    expect(r.diagnostics).toEqual([]);
    expect((r.manifest!.projects![0]!.variables![0]!.value as SecretValue).reveal()).toBe('');
  });

  it('warns that the default of a secret is written in clear, without printing it', async () => {
    const dir = tempTree({ 'm.yaml': projectVars(`      - {key: A, value: "\${env:TOKEN:-hunter2-default}", secret: true}\n`) });
    const r = await load(dir, ['m.yaml'], { env: { TOKEN: 'set' } });
    expect(r.diagnostics).toMatchObject([{ severity: 'warning', code: 'secret.in-clear', summary: 'the default of `${env:TOKEN:-…}` is a secret value written in clear in the manifest' }]);
    expect(JSON.stringify(r.diagnostics)).not.toContain('hunter2');
  });

  it('with missingEnv warning (offline validate): one warning per unset name listing every place; empty is still an error', async () => {
    const vars = `      - {key: A, value: "\${env:GONE}"}\n      - {key: B, value: "\${env:GONE}-\${env:ALSO_GONE}"}\n`;
    const dir = tempTree({ 'm.yaml': projectVars(vars) });
    const r = await load(dir, ['m.yaml'], { env: {}, missingEnv: 'warning' });
    expect(r.manifest).toBeDefined();
    expect(r.diagnostics.map((d) => [d.severity, d.code, d.summary])).toEqual([
      ['warning', 'ref.env-missing', 'environment variable `GONE` is not set: the values that read it were not checked'],
      ['warning', 'ref.env-missing', 'environment variable `ALSO_GONE` is not set: the values that read it were not checked'],
    ]);
    expect(r.diagnostics[0]!.detail).toContain('m.yaml:5:26, m.yaml:6:26');
    expect(r.diagnostics[1]!.detail).toContain('m.yaml:6:38');

    const empty = await load(dir, ['m.yaml'], { env: { GONE: '' }, missingEnv: 'warning' });
    expect(empty.manifest).toBeUndefined();
    expect(empty.diagnostics.filter((d) => d.code === 'ref.env-empty').map((d) => [d.severity, d.range?.start.line])).toEqual([
      ['error', 5],
      ['error', 6],
    ]);
  });

  it('suggests no default for a secret, however its reference is wrong (issue 19: a default is a secret in clear in Git)', async () => {
    for (const [ref, code] of [['${env:API-KEY}', 'ref.bad-env-name'], ['${vault:api/key}', 'ref.unknown-scheme']] as const) {
      const dir = tempTree({ 'm.yaml': projectVars(`      - {key: A, value: "${ref}", secret: true}\n      - {key: B, value: "${ref}"}\n`) });
      const r = await load(dir, ['m.yaml'], { env: {} });
      expect(r.diagnostics.map((d) => [d.code, d.range?.start.line])).toEqual([
        [code, 5],
        [code, 6],
      ]);
      expect(r.diagnostics[0]!.detail, ref).toContain('${env:NAME}');
      expect(r.diagnostics[0]!.detail, ref).not.toContain(':-');
      // A plain variable may still take a default.
      expect(r.diagnostics[1]!.detail, ref).toContain('${env:NAME:-default}');
    }
  });

  it('rejects a malformed default syntax as a bad reference', async () => {
    const dir = tempTree({ 'm.yaml': projectVars(`      - {key: A, value: "\${env:NAME-default}"}\n`) });
    const r = await load(dir, ['m.yaml'], { env: { NAME: 'x' } });
    expect(r.diagnostics).toMatchObject([{ code: 'ref.bad-env-name' }]);
    expect(r.diagnostics[0]!.detail).toContain('${env:NAME:-default}');
  });

  it('rejects an unknown reference scheme and lists the allowed ones', async () => {
    const dir = tempTree({ 'm.yaml': projectVars(`      - {key: A, value: "\${vault:x}"}\n`) });
    const r = await load(dir, ['m.yaml']);
    expect(r.diagnostics).toMatchObject([{ code: 'ref.unknown-scheme', summary: 'unknown reference `${vault:x}`' }]);
    expect(r.diagnostics[0]!.detail).toContain('${env:NAME} and ${file:PATH}');
  });
});

describe('${file:PATH}', () => {
  it('reads a file relative to the manifest file', async () => {
    const dir = tempTree({ 'conf/m.yaml': projectVars(`      - {key: A, value: "\${file:files/a.txt}", mount_path: /etc/a}\n`), 'conf/files/a.txt': 'line 1\nline 2\n' });
    const r = await load(dir, ['conf']);
    expect(r.diagnostics).toEqual([]);
    expect(r.manifest!.projects![0]!.variables![0]!.value).toBe('line 1\nline 2\n');
  });

  const refused: Array<[string, Record<string, string>, string, RegExp]> = [
    ['a ../ escape', { 'outside.txt': 'x' }, '../outside.txt', /outside the manifest directory/],
    ['an absolute path', {}, '/etc/hostname', /absolute paths are not allowed/],
    ['a missing file', {}, 'missing.txt', /no such file/],
    ['a directory', { 'sub/x.txt': 'x' }, 'sub', /not a regular file/],
  ];
  it.each(refused)('refuses %s, at the reference', async (_what, extra, ref, reason) => {
    const files: Record<string, string> = { 'root/m.yaml': projectVars(`      - {key: A, value: "\${file:${ref}}"}\n`) };
    for (const [k, v] of Object.entries(extra)) files[k.startsWith('sub') ? `root/${k}` : k] = v;
    const dir = tempTree(files);
    const r = await load(dir, ['root']);
    expect(r.manifest).toBeUndefined();
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ code: 'ref.file-unreadable', range: { file: 'root/m.yaml', start: { line: 5, col: 26 } } });
    expect(r.diagnostics[0]!.summary).toMatch(reason);
  });

  it('refuses a symlink that leads out of the manifest root, and follows one that stays inside', async () => {
    const dir = tempTree({
      'secret.txt': 'TOP-SECRET-OUTSIDE',
      'root/inside.txt': 'inside',
      'root/m.yaml': projectVars(`      - {key: A, value: "\${file:out-link}"}\n      - {key: B, value: "\${file:in-link}"}\n`),
    });
    symlinkSync(path.join(dir, 'secret.txt'), path.join(dir, 'root/out-link'));
    symlinkSync(path.join(dir, 'root/inside.txt'), path.join(dir, 'root/in-link'));
    const r = await load(dir, ['root']);
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]!.summary).toBe('cannot read `out-link`: it is a symbolic link that leads outside the manifest directory');
    expect(r.diagnostics[0]!.range!.start.line).toBe(5);
    expect(JSON.stringify(r.diagnostics)).not.toContain('TOP-SECRET-OUTSIDE');
  });

  it('confines a single manifest file to its own directory', async () => {
    const dir = tempTree({ 'a.txt': 'x', 'app/m.yaml': projectVars(`      - {key: A, value: "\${file:../a.txt}"}\n`) });
    const r = await load(dir, ['app/m.yaml']);
    expect(r.diagnostics[0]!.summary).toMatch(/outside the manifest directory/);
  });
});

describe('secrets', () => {
  const SECRET = 'sk_live_canary_5f1e2d3c4b5a';
  const manifest = `version: 1
alert_receivers:
  - name: ops
    type: SLACK
    webhook_url: \${env:SLACK_URL}
webhooks:
  - target_url: https://hooks.example.com/x
    events: [DEPLOYMENT_FAILED]
    secret: \${env:HOOK_SECRET}
projects:
  - name: shop
    variables:
      - {key: PLAIN, value: "\${env:PLAIN}"}
      - {key: STRIPE, value: "\${env:STRIPE}", secret: true}
      - {key: CERT, value: "\${file:cert.pem}", secret: true, mount_path: /etc/cert.pem}
    environments:
      - name: prod
        cluster: production-cluster
        services:
          - type: terraform
            name: infra
            git_repository: {url: "https://github.com/acme/infra.git"}
            tf_vars: {region: eu-west-3, db_password: "\${env:STRIPE}"}
            sensitive_tf_vars: [db_password]
`;
  const env = { SLACK_URL: `https://hooks.slack.com/${SECRET}`, HOOK_SECRET: SECRET, PLAIN: 'plain-value', STRIPE: SECRET };

  it('wraps every secret field in a SecretValue and leaves plain ones as strings', async () => {
    const dir = tempTree({ 'm.yaml': manifest, 'cert.pem': `-----BEGIN ${SECRET}-----\n` });
    const r = await load(dir, ['m.yaml'], { env });
    expect(r.diagnostics).toEqual([]);
    const m = r.manifest!;
    const vars = m.projects![0]!.variables!;
    expect(vars[0]!.value).toBe('plain-value');
    expect(isSecretValue(vars[1]!.value)).toBe(true);
    expect((vars[1]!.value as SecretValue).reveal()).toBe(SECRET);
    expect(isSecretValue(vars[2]!.value)).toBe(true);
    expect(isSecretValue(m.alert_receivers![0]!.webhook_url)).toBe(true);
    expect(isSecretValue(m.webhooks![0]!.secret)).toBe(true);
    const tf = m.projects![0]!.environments![0]!.services![0]!;
    if (tf.type !== 'terraform') throw new Error('expected terraform');
    expect(tf.tf_vars!.region).toBe('eu-west-3');
    expect(isSecretValue(tf.tf_vars!.db_password)).toBe(true);
    expect(JSON.stringify(m)).not.toContain(SECRET);
  });

  it('never shows a secret in a diagnostic, even one written in clear in the file', async () => {
    const clear = manifest.replace('"${env:STRIPE}", secret: true', `"${SECRET}", secret: true`).replace('cluster: production-cluster', 'cluster: production-cluster\n        mode: PROD');
    const dir = tempTree({ 'm.yaml': clear, 'cert.pem': 'x' });
    const r = await load(dir, ['m.yaml'], { env });
    expect(r.diagnostics.length).toBeGreaterThan(0);
    const all = JSON.stringify(r.diagnostics) + renderDiagnosticsHuman(r.diagnostics) + renderDiagnosticsGithub(r.diagnostics);
    expect(all).not.toContain(SECRET);
  });

  it('warns about a secret written in clear, without showing it', async () => {
    const clear = manifest.replace('"${env:STRIPE}", secret: true', `"${SECRET}", secret: true`);
    const dir = tempTree({ 'm.yaml': clear, 'cert.pem': 'x' });
    const r = await load(dir, ['m.yaml'], { env });
    expect(r.manifest).toBeDefined();
    expect(r.diagnostics).toMatchObject([{ severity: 'warning', code: 'secret.in-clear', range: { start: { line: 14, col: 30 } } }]);
    expect(r.diagnostics[0]!.excerpt).toContain('(sensitive value)');
    expect(JSON.stringify(r.diagnostics)).not.toContain(SECRET);
  });

  it("secretValues 'unread' (plan --no-secret-values): no secret field's reference is looked up or opened, every plain one still is", async () => {
    const withPassword = manifest.replace('    webhook_url: ${env:SLACK_URL}\n', '    webhook_url: ${env:SLACK_URL}\n  - name: mail\n    type: EMAIL\n    to: ops@example.com\n    from: driftless@example.com\n    smarthost: smtp.example.com:587\n    auth_username: ops\n    auth_password: ${env:SMTP_PASSWORD}\n');
    // No cert.pem: the secret file is not opened. The environment records every name looked up.
    const dir = tempTree({ 'm.yaml': withPassword });
    const read = new Set<string>();
    const spy = new Proxy({ ...env, SMTP_PASSWORD: SECRET }, { get: (t, k) => (typeof k === 'string' && read.add(k), Reflect.get(t, k)) });
    const r = await load(dir, ['m.yaml'], { env: spy, secretValues: 'unread' });
    expect(r.diagnostics).toEqual([]);
    expect([...read].sort()).toEqual(['PLAIN']);
    const m = r.manifest!;
    const vars = m.projects![0]!.variables!;
    expect(vars[0]!.value).toBe('plain-value');
    expect([vars[1]!.value, vars[2]!.value].every(isUnreadSecret)).toBe(true);
    expect(isUnreadSecret(m.alert_receivers![0]!.webhook_url)).toBe(true);
    expect(isUnreadSecret(m.alert_receivers![1]!.auth_password)).toBe(true);
    expect(isUnreadSecret(m.webhooks![0]!.secret)).toBe(true);
    const tf = m.projects![0]!.environments![0]!.services![0]!;
    if (tf.type !== 'terraform') throw new Error('expected terraform');
    expect(tf.tf_vars!.region).toBe('eu-west-3');
    expect(isUnreadSecret(tf.tf_vars!.db_password)).toBe(true);
    expect(() => (vars[1]!.value as SecretValue).reveal()).toThrow(/--no-secret-values/);
    // A plain reference stays required, and the error says why.
    const missing = await load(dir, ['m.yaml'], { env: {}, secretValues: 'unread' });
    expect(missing.diagnostics.map((d) => [d.code, d.summary])).toEqual([['ref.env-missing', 'environment variable `PLAIN` is not set']]);
    expect(missing.diagnostics[0]!.detail).toContain('this field is not secret');
  });
});
