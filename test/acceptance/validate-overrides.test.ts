/**
 * Acceptance: an override cannot move a file. The API's override takes a value (and description,
 * interpolation flag), never a mount_path: an override whose mount_path differs from the variable it
 * overrides was planned as a replacement on every run (plan -> apply -> plan never converged).
 * validate says so at file:line:col; an override repeating the same mount_path stays valid.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run, tempDir } from '../export/helpers.js';

const tmp = tempDir('driftless-acceptance-');
afterAll(() => tmp.cleanup());

const manifest = (overrideMount: string) => `version: 1
projects:
  - name: p
    variables:
      - key: CONF
        value: "a=1"
        mount_path: /etc/conf
      - key: PLAIN
        value: x
    environments:
      - name: e
        cluster: staging-cluster
        variables:
          - key: CONF
            value: "a=2"
            override: true
            mount_path: ${overrideMount}
          - key: PLAIN
            value: y
            override: true
            mount_path: /etc/plain
`;

describe('validate: the mount_path of an override', () => {
  it('must be the mount_path of the variable it overrides', async () => {
    const file = path.join(tmp.dir, 'bad.yaml');
    writeFileSync(file, manifest('/etc/other'));
    const r = await run(['validate', file], { NO_COLOR: '1' });
    expect(r.code).toBe(1);
    const out = r.stdout + r.stderr;
    expect(out).toContain('bad.yaml:17:25');
    expect(out).toContain('/etc/conf');
    expect(out).toContain('bad.yaml:21:25');
    const ok = path.join(tmp.dir, 'ok.yaml');
    writeFileSync(ok, manifest('/etc/conf').replace('            mount_path: /etc/plain\n', ''));
    const good = await run(['validate', ok], { NO_COLOR: '1' });
    expect(good.code, good.stdout + good.stderr).toBe(0);
  });
});
