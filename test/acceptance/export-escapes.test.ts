/**
 * Acceptance: text holding `${` is exported escaped as `$${` (so it is not read as a reference).
 * A description of the API's full 255 characters holding `${` must still validate: the limit
 * applies to the text, not to its escaped spelling in YAML.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectValidAndInSync, run, startEmu, tempDir, type Emu } from '../export/helpers.js';

let emu: Emu;
const tmp = tempDir('driftless-acceptance-');
const description = ('Uses ${HOST} and ${PORT}; ünïcode. ').repeat(10).slice(0, 255);

beforeAll(async () => {
  emu = await startEmu();
  const { api } = emu;
  const org = emu.em.organizationId;
  const clusters = (await api('GET', `/organization/${org}/cluster`)).results as any[];
  const project = await api('POST', `/organization/${org}/project`, { name: 'Templates' });
  const env = await api('POST', `/project/${project.id}/environment`, { name: 'dev', mode: 'DEVELOPMENT', cluster_id: clusters[0].id });
  await api('POST', '/variable', { key: 'URL', value: 'http://${HOST}:${PORT}/', description, is_secret: false, variable_scope: 'ENVIRONMENT', variable_parent_id: env.id });
}, 30_000);

afterAll(async () => {
  await emu.close();
  tmp.cleanup();
});

describe('export of a 255-character description holding ${', () => {
  it('validates and plans with no changes', async () => {
    expect(description.length).toBe(255);
    const file = path.join(tmp.dir, 'org.yaml');
    expect((await run(['export', '--out', file], emu.env())).code).toBe(0);
    await expectValidAndInSync(file, emu.env());
  });
});
