/**
 * Acceptance: a prune key written at a level where it does nothing (services on a project, projects
 * on an environment, ...) is pointed out at file:line:col, with the level where it works, instead
 * of being silently ignored (the user believes undeclared services will be deleted; they never are).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { run, tempDir } from '../export/helpers.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const tmp = tempDir('driftless-acceptance-');
afterAll(() => tmp.cleanup());

describe('validate: prune keys at the wrong level', () => {
  it('warns about each key that has no effect where it is written, and says where it belongs', async () => {
    const file = path.join(tmp.dir, 'main.yaml');
    writeFileSync(
      file,
      `version: 1
prune:
  services: true
projects:
  - name: shop
    prune:
      services: true
      variables: true
    environments:
      - name: prod
        cluster: production-cluster
        prune:
          environments: true
          services: true
`,
    );
    const r = await run(['validate', file], { NO_COLOR: '1' });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = r.stdout + r.stderr;
    expect(out).toContain('main.yaml:3:3');
    expect(out).toContain('main.yaml:7:7');
    expect(out).toContain('main.yaml:13:11');
    expect(out).toMatch(/`services`.*has no effect on a project/);
    expect(out).toMatch(/on an environment/);
    expect(out).not.toContain('main.yaml:8:'); // variables is fine on a project
    expect(out).not.toContain('main.yaml:14:'); // services is fine on an environment
  });
});
