/**
 * Organization helm repositories and the helm service `source` in the real API's shapes:
 * the registry (list, get, create, edit, delete), the request's `helm_repository.repository` as a
 * repository id, and the HelmResponse source `{repository: {chart_name, chart_version, repository:
 * {id, name, url}}}` | `{git: {git_repository}}`, checked against the reference OpenAPI document.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { startClient, type Client } from './helpers.js';
import { startEmulator } from '../../src/emulator/server.js';
import { helmBody, helmRepositoryId, projectAndEnv } from './fixtures.js';
import { resolveRefs } from './contract-check.js';
import { loadReference } from './reference-check.js';

let c: Client;
let org: string;
let envId: string;
beforeAll(async () => {
  c = await startClient({ deployDurationMs: 50 });
  org = c.em.organizationId;
  envId = (await projectAndEnv(c, 'charts')).env.id;
});
afterAll(async () => {
  await c.em.close();
});

const repoBody = (name: string, over: Record<string, unknown> = {}) => ({ name, kind: 'HTTPS', url: `https://${name}.example.com/charts`, skip_tls_verification: false, config: {}, ...over });

describe('organization helm repositories', () => {
  it('a fresh organization has bitnami and prometheus-community, listed and readable by id', async () => {
    const list = await c.get(`/organization/${org}/helmRepository`);
    expect(list.status).toBe(200);
    const byName = Object.fromEntries(list.body.results.map((r: any) => [r.name, r]));
    expect(byName.bitnami).toMatchObject({ kind: 'HTTPS', url: 'https://charts.bitnami.com/bitnami', skip_tls_verification: false, config: {} });
    expect(byName['prometheus-community']).toMatchObject({ kind: 'HTTPS', url: 'https://prometheus-community.github.io/helm-charts' });
    const one = await c.get(`/organization/${org}/helmRepository/${byName.bitnami.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(byName.bitnami);
    expect((await c.get(`/organization/${org}/helmRepository/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await c.get(`/organization/00000000-0000-4000-8000-000000000000/helmRepository`)).status).toBe(404);
  });

  it('create, edit (full replacement, credentials write-only and kept when omitted), unique names, url scheme per kind', async () => {
    const made = await c.post(`/organization/${org}/helmRepository`, repoBody('private', { kind: 'OCI_GENERIC_CR', url: 'oci://registry.example.com/charts', config: { username: 'bot', password: 'repo-PASSWORD' } }));
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'private', kind: 'OCI_GENERIC_CR', config: { username: 'bot' }, associated_services_count: 0 });
    expect(JSON.stringify(made.body)).not.toContain('repo-PASSWORD');
    const id = made.body.id;
    const put = await c.put(`/organization/${org}/helmRepository/${id}`, repoBody('private-charts', { kind: 'OCI_GENERIC_CR', url: 'oci://registry.example.com/charts', config: { username: 'robot' } }));
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'private-charts', config: { username: 'robot' } });
    expect(put.body.updated_at > made.body.updated_at).toBe(true);
    expect(c.em.state.secretValues[`helmrepo:${id}:password`]).toBe('repo-PASSWORD');
    const list = await c.get(`/organization/${org}/helmRepository`);
    expect(JSON.stringify(list.body)).not.toContain('repo-PASSWORD');

    const clash = await c.post(`/organization/${org}/helmRepository`, repoBody('BITNAMI'));
    expect(clash.status).toBe(409);
    const badScheme = await c.post(`/organization/${org}/helmRepository`, repoBody('oci-over-https', { kind: 'OCI_DOCKER_HUB' }));
    expect(badScheme.status).toBe(400);
    expect(badScheme.body.message).toContain("field 'url'");
    expect(badScheme.body.message).toContain('oci://');
    const badKind = await c.post(`/organization/${org}/helmRepository`, repoBody('k', { kind: 'S3' }));
    expect(badKind.status).toBe(400);
    expect(badKind.body.message).toContain('kind');
    expect(badKind.body.message).toContain('HTTPS');
    const noUrl = await c.post(`/organization/${org}/helmRepository`, { name: 'n', kind: 'HTTPS', skip_tls_verification: false, config: {} });
    expect(noUrl.status).toBe(400);
    expect(noUrl.body.message).toContain('url');
    expect((await c.post(`/organization/${org}/helmRepository`, repoBody('read-only'), c.em.tokens.READ)).status).toBe(403);

    expect((await c.del(`/organization/${org}/helmRepository/${id}`)).status).toBe(204);
    expect(c.em.state.secretValues[`helmrepo:${id}:password`]).toBeUndefined();
    expect((await c.get(`/organization/${org}/helmRepository/${id}`)).status).toBe(404);
  });
});

describe('helm service source', () => {
  it('the request names a repository by id; the answer embeds it as {repository: {chart_name, chart_version, repository: {id, name, url}}}', async () => {
    const repo = await c.post(`/organization/${org}/helmRepository`, repoBody('team'));
    const made = await c.post(`/environment/${envId}/helm`, helmBody(repo.body.id, 'from-team'));
    expect(made.status).toBe(201);
    expect(made.body.source).toEqual({ repository: { chart_name: 'redis', chart_version: '19.0.0', repository: { id: repo.body.id, name: 'team', url: 'https://team.example.com/charts' } } });
    expect((await c.get(`/helm/${made.body.id}`)).body.source).toEqual(made.body.source);
    expect((await c.get(`/organization/${org}/helmRepository/${repo.body.id}`)).body.associated_services_count).toBe(1);

    // A renamed repository shows its new name in the service it serves; it cannot go while used.
    await c.put(`/organization/${org}/helmRepository/${repo.body.id}`, repoBody('team-charts', { url: 'https://team.example.com/charts' }));
    expect((await c.get(`/helm/${made.body.id}`)).body.source.repository.repository).toEqual({ id: repo.body.id, name: 'team-charts', url: 'https://team.example.com/charts' });
    const busy = await c.del(`/organization/${org}/helmRepository/${repo.body.id}`);
    expect(busy.status).toBe(409);
    expect(busy.body.message).toContain('from-team');

    // PUT to another repository, then to git: the answer follows.
    const bitnami = await helmRepositoryId(c);
    const moved = await c.put(`/helm/${made.body.id}`, { ...helmBody(bitnami, 'from-team'), source: { helm_repository: { repository: bitnami, chart_name: 'redis', chart_version: '20.0.0' } } });
    expect(moved.status).toBe(200);
    expect(moved.body.source.repository).toMatchObject({ chart_version: '20.0.0', repository: { id: bitnami, name: 'bitnami' } });
    const git = await c.put(`/helm/${made.body.id}`, { ...helmBody(bitnami, 'from-team'), source: { git_repository: { url: 'https://github.com/acme/charts.git', branch: 'main', root_path: '/redis' } } });
    expect(git.status).toBe(200);
    expect(Object.keys(git.body.source)).toEqual(['git']);
    expect(git.body.source.git.git_repository).toMatchObject({ url: 'https://github.com/acme/charts.git', branch: 'main', root_path: '/redis', provider: 'GITHUB', owner: 'acme', name: 'charts' });
    expect((await c.del(`/organization/${org}/helmRepository/${repo.body.id}`)).status).toBe(204);
  });

  it('an unknown, missing or malformed repository id is a 400 naming the field and the known repositories', async () => {
    const unknown = await c.post(`/environment/${envId}/helm`, helmBody('00000000-0000-4000-8000-000000000000', 'nope'));
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain("field 'source.helm_repository.repository'");
    expect(unknown.body.message).toContain('bitnami (');
    const missing = await c.post(`/environment/${envId}/helm`, { name: 'nope', source: { helm_repository: { chart_name: 'redis', chart_version: '1.0.0' } } });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain("field 'source.helm_repository.repository'");
    const url = await c.post(`/environment/${envId}/helm`, helmBody('https://charts.bitnami.com/bitnami', 'nope'));
    expect(url.status).toBe(400);
    expect(url.body.message).toContain('source.helm_repository.repository');
    expect(Object.values(c.em.state.services).some((s) => s.name === 'nope')).toBe(false);
  });

  it('a record stored in the old request shape (a --data file or --seed fixture) is answered in the real shape', async () => {
    const made = await c.post(`/environment/${envId}/helm`, helmBody(await helmRepositoryId(c), 'legacy'));
    const rec = c.em.state.services[made.body.id];
    c.em.state.services[made.body.id] = { ...rec, source: { git_repository: null, helm_repository: { repository: 'https://charts.bitnami.com/bitnami', chart_name: 'redis', chart_version: '1.0.0' } } };
    const got = await c.get(`/helm/${made.body.id}`);
    expect(got.body.source).toEqual({ repository: { chart_name: 'redis', chart_version: '1.0.0', repository: { id: await helmRepositoryId(c), name: 'bitnami', url: 'https://charts.bitnami.com/bitnami' } } });
  });
});

/**
 * ajv refuses `nullable` beside no `type` (HelmResponse.source says `nullable: false` beside its
 * oneOf): false means nothing more, true is the alternative `null`.
 */
function typelessNullable(node: any): any {
  if (Array.isArray(node)) return node.map(typelessNullable);
  if (!node || typeof node !== 'object') return node;
  const out: any = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, typelessNullable(v)]));
  if ('nullable' in out && out.type === undefined) {
    const { nullable, ...rest } = out;
    return nullable ? { anyOf: [rest, { type: 'null' }] } : rest;
  }
  return out;
}

describe('a --data file written before helm repositories existed', () => {
  it('starts with the default repositories, kept in the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'driftless-helm-data-'));
    try {
      const file = join(dir, 'state.json');
      const { helmRepositories: _gone, ...old } = JSON.parse(JSON.stringify(c.em.state));
      writeFileSync(file, JSON.stringify(old));
      const em = await startEmulator({ dataFile: file });
      try {
        expect(Object.values(em.state.helmRepositories).map((r) => r.name).sort()).toEqual(['bitnami', 'prometheus-community']);
        expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).helmRepositories)).toHaveLength(2);
      } finally {
        await em.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('against the real API document (qovery-openapi.yaml, vendored in test/fixtures/reference)', () => {
  it('requests validate against HelmRequest / HelmRepositoryRequest, answers against HelmResponse / HelmRepositoryResponse(List)', async () => {
    const real = loadReference();
    // The reference writes `format: UUID` and `format: uu`: formats are not what is checked here.
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    // HelmRequest.source is a oneOf of two objects that declare no required field, so every
    // object matches both alternatives: read as the anyOf it means. Answers keep their oneOf.
    const loose = (s: unknown) => JSON.parse(JSON.stringify(s).replaceAll('"oneOf":', '"anyOf":'));
    const valid = (name: string, value: unknown) => {
      const schema = typelessNullable(resolveRefs(real.components.schemas[name], real));
      const v = ajv.compile(name.endsWith('Request') ? loose(schema) : schema);
      return { ok: v(value), errors: ajv.errorsText(v.errors) };
    };
    const check = (name: string, value: unknown) => {
      const r = valid(name, value);
      expect(r.ok, `${name}: ${r.errors}`).toBe(true);
    };
    const repoRequest = repoBody('real-shape');
    check('HelmRepositoryRequest', repoRequest);
    const repo = await c.post(`/organization/${org}/helmRepository`, repoRequest);
    check('HelmRepositoryResponse', repo.body);
    check('HelmRepositoryResponseList', (await c.get(`/organization/${org}/helmRepository`)).body);

    const fromRepo = { ...helmBody(repo.body.id, 'real-repo'), auto_deploy: false, arguments: [], values_override: { set: [['a', '1']] } };
    const fromGit = { ...fromRepo, name: 'real-git', source: { git_repository: { url: 'https://github.com/acme/charts.git', branch: 'main', root_path: '/c', provider: 'GITHUB', owner: 'acme', name: 'charts' } } };
    for (const body of [fromRepo, fromGit]) {
      check('HelmRequest', body);
      const made = await c.post(`/environment/${envId}/helm`, body);
      expect(made.status).toBe(201);
      check('HelmResponse', made.body);
      check('HelmResponse', (await c.get(`/helm/${made.body.id}`)).body);
      // What the emulator used to answer (the request shape) is not a HelmResponse.
      expect(valid('HelmResponse', { ...made.body, source: body.source }).ok).toBe(false);
    }
    // The alternatives really are the two the document gives (HelmResponse's source is a oneOf).
    const srcSchemas = ['HelmSourceRepositoryResponse', 'HelmSourceGitResponse'].map((n) => Object.keys(real.components.schemas[n].properties).sort());
    expect(srcSchemas).toEqual([['chart_name', 'chart_version', 'repository'], ['git_repository']]);
  });
});
