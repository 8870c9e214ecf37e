/**
 * Acceptance: what the API accepts in the console, an exported manifest accepts too. Variable keys
 * with dots and dashes (the API allows letters, digits, '_', '.', '-') export to a manifest that
 * validates and plans clean; a secret with such a key gets a valid ${env:NAME} placeholder.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, startEmu, tempDir, type Emu } from '../export/helpers.js';

let emu: Emu;
const tmp = tempDir('driftless-acceptance-');

beforeAll(async () => {
  emu = await startEmu();
  const { api } = emu;
  const org = emu.em.organizationId;
  const clusters = (await api('GET', `/organization/${org}/cluster`)).results as any[];
  const project = await api('POST', `/organization/${org}/project`, { name: 'Keys' });
  const env = await api('POST', `/project/${project.id}/environment`, { name: 'dev', mode: 'DEVELOPMENT', cluster_id: clusters[0].id });
  await api('POST', '/variable', { key: 'spring.datasource-url', value: 'jdbc:x', is_secret: false, variable_scope: 'PROJECT', variable_parent_id: project.id });
  await api('POST', '/variable', { key: 'db.pass-word', value: 's3cr3t-dotted', is_secret: true, variable_scope: 'ENVIRONMENT', variable_parent_id: env.id });
}, 30_000);

afterAll(async () => {
  await emu.close();
  tmp.cleanup();
});

describe('export of variable keys with dots and dashes', () => {
  it('validates, and plans nothing: the secret driftless never wrote is ignored', async () => {
    const file = path.join(tmp.dir, 'org.yaml');
    const exp = await run(['export', '--out', file], emu.env());
    expect(exp.code, exp.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('key: spring.datasource-url');
    const placeholder = /\$\{env:([A-Za-z0-9_]+)\}/.exec(text)?.[1];
    expect(placeholder).toBeDefined();
    const validate = await run(['validate', file], emu.env({ [placeholder!]: 's3cr3t-dotted' }));
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    const plan = await run(['plan', file, '--format', 'json'], emu.env({ [placeholder!]: 's3cr3t-dotted' }));
    expect(plan.code, plan.stderr).toBe(0);
    const doc = JSON.parse(plan.stdout);
    expect(doc.resource_changes.filter((c: any) => c.change.actions[0] !== 'no-op').map((c: any) => c.address)).toEqual([]);
    expect(doc.resource_changes.filter((c: any) => c.change.ignored_fields).map((c: any) => [c.address, c.change.ignored_fields])).toEqual([
      ['project.Keys/environment.dev/variable.db.pass-word', ['value']],
    ]);
    expect(plan.stdout).not.toContain('s3cr3t-dotted');
  });
});
