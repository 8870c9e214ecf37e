/**
 * The preview commands cost requests in proportion to the previews, not to the organization: the
 * organization and its projects are read once per command, whatever the number of projects that
 * declare previews, and `up` reads the URLs of the environment it created by the id its creation
 * returned, without listing the organization again. Counted from the `debug` log level's one line
 * per request, end to end against the emulator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';
import { previewManifest } from '../support/preview-manifest.js';

let h: Harness;

const BLOG = `  - name: blog
    templates:
      - name: site
        services:
          - type: application
            name: www
            git_repository: { url: "https://github.com/acme/www.git", branch: main }
            dockerfile_path: Dockerfile
            ports: [{ name: http, internal_port: 8080, publicly_accessible: true }]
    previews:
      template: site
      name: "blog-pr-{number}"
      cluster: staging-cluster
`;

const DEBUG = { env: { DRIFTLESS_LOG_LEVEL: 'debug' } };
/** How many GETs of the organization, and of its projects' list, the run's debug lines show. */
function organizationReads(stderr: string): { organization: number; projects: number } {
  return {
    organization: (stderr.match(/^debug: API GET \/organization -> /gm) ?? []).length,
    projects: (stderr.match(/^debug: API GET \/organization\/[^/\s]+\/project -> /gm) ?? []).length,
  };
}

beforeAll(async () => {
  h = await startHarness({ refreshCache: false });
  h.write({ 'infra/main.yaml': previewManifest({ services: [], previews: { allowDataLoss: true }, moreProjects: BLOG }) });
  const applied = await h.run(['apply', 'infra', '--auto-approve', ...FAST]);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe('requests of the preview commands', () => {
  it('up that creates the preview reads the organization and its projects once (the plan\'s read), and prints the URLs', async () => {
    const r = await h.run(['preview', 'up', 'infra', '--project', 'shop', '--number', '1', '--format', 'json', ...FAST], DEBUG);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ environment: 'pr-1', created: true, urls: [{ service: 'api' }] });
    expect(organizationReads(r.stderr)).toEqual({ organization: 1, projects: 1 });
  });

  for (const argv of [['list'], ['prune', '--keep', '1'], ['down', '--project', 'shop', '--number', '1']]) {
    it(`${argv[0]} reads the organization and its projects once, with two projects declaring previews`, async () => {
      const r = await h.run(['preview', argv[0]!, 'infra', ...argv.slice(1), ...FAST], DEBUG);
      expect(r.code, r.stderr).toBe(0);
      expect(organizationReads(r.stderr)).toEqual({ organization: 1, projects: 1 });
    });
  }

  it('down deleted the preview', () => {
    expect(Object.values(h.emu.state.environments).map((e) => e.name).sort()).toEqual(['staging']);
  });
});
