/** `validate --remote` against the emulator: cluster, registry and helm repository names checked with four reads. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { tempTree } from './helpers.js';
import { ONLY_USAGE_LINE } from '../e2e/helpers.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await emu?.close();
});

async function run(argv: string[], cwd: string, env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, env, cwd };
  return { code: await main(argv, io), stdout, stderr };
}

const manifest = (cluster: string, registry: string) => `version: 1
projects:
  - name: shop
    environments:
      - name: prod
        cluster: ${cluster}
        services:
          - {type: container, name: web, registry: ${registry}, image_name: library/nginx, tag: "1.27"}
`;

describe('driftless validate --remote', () => {
  it('accepts the names the organization has', async () => {
    const dir = tempTree({ 'm.yaml': manifest('production-cluster', 'docker-hub') });
    const r = await run(['validate', '--remote'], dir, { DRIFTLESS_API_URL: emu.url, DRIFTLESS_API_TOKEN: emu.tokens.READ });
    expect(r.stderr).toMatch(ONLY_USAGE_LINE);
    expect(r.code).toBe(0);
  });

  it('reports an unknown cluster or registry where it is written, with the known names', async () => {
    const dir = tempTree({ 'm.yaml': manifest('prodution-cluster', 'dockerhub') });
    const r = await run(['validate', '--remote', '--format', 'github'], dir, { DRIFTLESS_API_URL: emu.url, DRIFTLESS_API_TOKEN: emu.tokens.READ });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('::error file=m.yaml,line=6,col=18,endLine=6,endColumn=35,title=ref.unresolved::cluster `prodution-cluster` does not exist in the organization%0ADid you mean `production-cluster`?');
    expect(r.stdout).toContain('title=ref.unresolved::container registry `dockerhub` does not exist in the organization%0ADid you mean `docker-hub`?');
    expect(r.stdout + r.stderr).not.toContain(emu.tokens.READ);
  });

  it('reports an unknown helm repository where it is written, with the known names', async () => {
    const helm = (repository: string) => `version: 1
projects:
  - name: shop
    environments:
      - name: prod
        cluster: production-cluster
        services:
          - type: helm
            name: cache
            source:
              helm_repository: {repository: ${repository}, chart_name: redis, chart_version: "19.0.0"}
`;
    const env = { DRIFTLESS_API_URL: emu.url, DRIFTLESS_API_TOKEN: emu.tokens.READ };
    const ok = await run(['validate', '--remote'], tempTree({ 'm.yaml': helm('bitnami') }), env);
    expect(ok.stderr).toMatch(ONLY_USAGE_LINE);
    expect(ok.code).toBe(0);
    const r = await run(['validate', '--remote', '--format', 'github'], tempTree({ 'm.yaml': helm('bitnam') }), env);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/::error file=m\.yaml,line=11,[^:]*title=ref\.unresolved::helm repository `bitnam` does not exist in the organization%0ADid you mean `bitnami`\? Known: bitnami, prometheus-community\./);
  });

  it('does not call the API without --remote, and says why it cannot with a bad token', async () => {
    const dir = tempTree({ 'm.yaml': manifest('prodution-cluster', 'dockerhub') });
    const offline = await run(['validate'], dir, { DRIFTLESS_API_URL: 'http://127.0.0.1:9', DRIFTLESS_API_TOKEN: 'x' });
    expect(offline.code).toBe(0);
    const token = 'not-a-valid-token-canary-7d1e';
    const denied = await run(['validate', '--remote'], dir, { DRIFTLESS_API_URL: emu.url, DRIFTLESS_API_TOKEN: token });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('error[api.unauthorized]: Reading cluster, registry and helm repository names failed');
    expect(denied.stdout + denied.stderr).not.toContain(token);
  });
});
