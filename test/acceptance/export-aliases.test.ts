/**
 * Acceptance: an alias of a file variable, made in the console, exports to a manifest that
 * validates and plans clean (the alias record carries the mount_path of the file it points to,
 * which a manifest alias cannot declare); so does the interpolation flag set on a variable that is
 * not a file (the API takes it, a manifest only allows it with a mount_path).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectValidAndInSync, run, startEmu, tempDir, type Emu } from '../export/helpers.js';

let emu: Emu;
const tmp = tempDir('driftless-acceptance-');

beforeAll(async () => {
  emu = await startEmu();
  const { api } = emu;
  const org = emu.em.organizationId;
  const clusters = (await api('GET', `/organization/${org}/cluster`)).results as any[];
  const project = await api('POST', `/organization/${org}/project`, { name: 'Billing' });
  const env = await api('POST', `/project/${project.id}/environment`, { name: 'dev', mode: 'DEVELOPMENT', cluster_id: clusters[0].id });
  const file = await api('POST', '/variable', { key: 'APP_CONFIG', value: 'a: 1\n', mount_path: '/etc/app.yaml', is_secret: false, variable_scope: 'PROJECT', variable_parent_id: project.id });
  await api('POST', `/variable/${file.id}/alias`, { key: 'CONFIG_ALIAS', alias_scope: 'ENVIRONMENT', alias_parent_id: env.id, description: 'follows APP_CONFIG', enable_interpolation_in_file: true });
  // The API takes the interpolation flag on any variable; it only means something for a file.
  await api('POST', '/variable', { key: 'PLAIN', value: 'v', is_secret: false, variable_scope: 'ENVIRONMENT', variable_parent_id: env.id, enable_interpolation_in_file: true });
}, 30_000);

afterAll(async () => {
  await emu.close();
  tmp.cleanup();
});

describe('export of an alias of a file variable, and of the interpolation flag on a plain value', () => {
  it('validates and plans with no changes', async () => {
    const file = path.join(tmp.dir, 'org.yaml');
    expect((await run(['export', '--out', file], emu.env())).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('alias: APP_CONFIG');
    await expectValidAndInSync(file, emu.env());
  });
});
