/**
 * `driftless preview up|down|list|prune` end to end over HTTP against the emulator: a preview made
 * from the project's `previews:` declaration, deployed and waited for, its URLs printed; a second
 * `up` with a new commit redeploys that service alone; `--set` of a branch; down deletes it and its
 * database (allow_data_loss) or is blocked; list and prune; requests in proportion to the preview.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';
import { previewManifest } from '../support/preview-manifest.js';

let h: Harness;

/** pg, api and web in two stages; the previews' web overridden to 100 cpu (staging keeps 250). */
const manifest = (o: { allowDataLoss?: boolean; ttl?: string } = {}) =>
  previewManifest({ previews: { ...(o.ttl ? { ttl: o.ttl } : {}), allowDataLoss: o.allowDataLoss ?? true, serviceOverrides: ['web: { cpu: 100 }'] } });

const SHA1 = 'aaaaaaa1111111111111111111111111111111111'.slice(0, 40);
const SHA2 = 'bbbbbbb2222222222222222222222222222222222'.slice(0, 40);

const envNamed = (name: string) => Object.values(h.emu.state.environments).find((e) => e.name === name);
const servicesOf = (envId: string) => Object.values(h.emu.state.services).filter((s) => s.environment.id === envId);
/** How many deployments each service of the environment has had (its deployment history). */
const deployCounts = (envId: string) => Object.fromEntries(servicesOf(envId).map((x) => [x.name, (h.emu.state.serviceHistory[x.id] ?? []).length]));

beforeAll(async () => {
  h = await startHarness({ refreshCache: false });
  h.write({ 'infra/shop.yaml': manifest() });
  const applied = await h.run(['apply', 'infra', '--auto-approve', ...FAST]);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await h?.close();
});

describe('preview up', () => {
  it('creates pr-N from the template with the overrides and --set, deploys it, prints {environment, created, urls}', async () => {
    const r = await h.run(['preview', 'up', 'infra', '--project', 'shop', '--number', '42', '--set', `api.git_commit_id=${SHA1}`, '--set', 'api.git_repository.branch=feature-x', '--format', 'json', ...FAST]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out).sort()).toEqual(['created', 'environment', 'urls']);
    expect(out.environment).toBe('pr-42');
    expect(out.created).toBe(true);
    expect(out.urls.map((u: any) => u.service)).toEqual(['api', 'web']);
    for (const u of out.urls) expect(u.url).toMatch(/^https:\/\//);
    const env = envNamed('pr-42')!;
    const byName = Object.fromEntries(servicesOf(env.id).map((s) => [s.name, s]));
    expect(Object.keys(byName).sort()).toEqual(['api', 'pg', 'web']);
    expect(byName.api.git_repository.branch).toBe('feature-x');
    expect(byName.api.git_repository.deployed_commit_id).toBe(SHA1);
    expect(byName.web.cpu).toBe(100);
    // Deployed and waited for: every service's status is DEPLOYED when up returns.
    for (const s of servicesOf(env.id)) expect(h.emu.state.serviceStatuses[s.id]!.state, s.name).toBe('DEPLOYED');
    // The URLs are the API's links.
    const links: any = await (await fetch(`${h.emu.url}/environment/${env.id}/link`, { headers: { authorization: `Token ${h.emu.tokens.ADMIN}` } })).json();
    expect(out.urls.map((u: any) => u.url).sort()).toEqual(links.results.map((l: any) => l.url).sort());
    // staging is untouched by the preview's overrides.
    expect(servicesOf(envNamed('staging')!.id).find((s) => s.name === 'web')!.cpu).toBe(250);
  });

  it('a second up with a new commit redeploys that service alone, costs requests in proportion to the preview, prints created false', async () => {
    const env = envNamed('pr-42')!;
    const before = deployCounts(env.id);
    expect(before).toEqual({ api: 1, pg: 1, web: 1 });
    const r = await h.run(['preview', 'up', 'infra', '--project', 'shop', '--number', '42', '--set', `api.git_commit_id=${SHA2}`, '--set', 'api.git_repository.branch=feature-x', '--format', 'json', ...FAST]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ environment: 'pr-42', created: false });
    expect(deployCounts(env.id)).toEqual({ api: 2, pg: 1, web: 1 });
    expect(servicesOf(env.id).find((s) => s.name === 'api')!.git_repository.deployed_commit_id).toBe(SHA2);
    const requests = Number(/(\d+) API requests?/.exec(r.stderr)![1]);
    expect(requests).toBeLessThan(40);
  });

  it('an up with nothing new changes nothing and says so; human output lists the URLs', async () => {
    const r = await h.run(['preview', 'up', 'infra', '--project', 'shop', '--number', '42', '--set', `api.git_commit_id=${SHA2}`, '--set', 'api.git_repository.branch=feature-x', ...FAST]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Preview pr-42 is up to date');
    expect(r.stdout).toMatch(/Preview pr-42 updated\.\n  api  https:\/\/\S+\n  web  https:\/\/\S+\n/);
  });

  it('--out saves the plan instead of applying it; apply PLANFILE applies exactly it (the preview under its seal)', async () => {
    const saved = await h.run(['preview', 'up', 'infra', '--project', 'shop', '--number', '43', '--set', `api.git_commit_id=${SHA1}`, '--out', 'pr-43.plan.json']);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stderr).toContain('Saved the plan of preview pr-43 to pr-43.plan.json');
    expect(envNamed('pr-43')).toBeUndefined();
    const applied = await h.run(['apply', 'pr-43.plan.json', ...FAST]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Applying the saved plan pr-43.plan.json, unchanged since it was made.');
    const env = envNamed('pr-43')!;
    expect(servicesOf(env.id).find((x) => x.name === 'api')!.git_repository.deployed_commit_id).toBe(SHA1);
    // Applied: a second apply of the same file is refused (the live state changed since).
    const again = await h.run(['apply', 'pr-43.plan.json', ...FAST]);
    expect(again.code).toBe(1);
    // The way to a new plan is the command that made this one (plan would not make the preview).
    expect(again.stderr).toContain('Run `driftless preview up --project shop --number 43 --out pr-43.plan.json` (with the same --set api.git_commit_id=...) again');
    expect((await h.run(['preview', 'down', 'infra', '--project', 'shop', '--number', '43'])).code).toBe(0);
  });

  it('a plan of the whole manifest leaves the preview alone', async () => {
    const r = await h.run(['plan', 'infra', '--detailed-exitcode']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('1 preview environment (pr-{number}) left to `driftless preview`.');
  });

  it('refuses bad usage before any request: no --number, an unknown --set service, a flag of another action', async () => {
    const noNumber = await h.run(['preview', 'up', 'infra', '--project', 'shop']);
    expect(noNumber.code).toBe(1);
    expect(noNumber.stderr).toContain('preview up needs --number N');
    const badSet = await h.run(['preview', 'up', 'infra', '--project', 'shop', '--number', '5', '--set', 'apii.cpu=1']);
    expect(badSet.code).toBe(1);
    expect(badSet.stderr).toContain('--set apii.cpu=1: template `web-stack` has no service `apii`');
    const keepOnUp = await h.run(['preview', 'up', 'infra', '--project', 'shop', '--number', '5', '--keep', '1']);
    expect(keepOnUp.code).toBe(1);
    expect(keepOnUp.stderr).toContain('--keep is not an option of preview up');
    // One duration parser for --timeout and --older-than; --older-than wants a unit, and says so in its own words.
    const bareAge = await h.run(['preview', 'prune', 'infra', '--older-than', '72']);
    expect(bareAge.code).toBe(1);
    expect(bareAge.stderr).toContain('--older-than must be a duration such as 72h, 7d or 90m, got 72');
    expect(envNamed('pr-5')).toBeUndefined();
  });
});

describe('preview list, down and prune', () => {
  it('list gives number, name, age, last deploy, status and URLs', async () => {
    const r = await h.run(['preview', 'list', 'infra', '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const { previews } = JSON.parse(r.stdout);
    expect(previews).toHaveLength(1);
    expect(previews[0]).toMatchObject({ project: 'shop', number: 42, name: 'pr-42', status: 'DEPLOYED' });
    expect(previews[0].last_deployment_date).toEqual(expect.any(String));
    expect(previews[0].urls).toHaveLength(2);
    const text = await h.run(['preview', 'list', 'infra']);
    expect(text.stdout).toMatch(/NUMBER\s+NAME\s+AGE\s+LAST DEPLOY\s+STATUS\s+URLS\n42\s+pr-42\s+\S+\s+.+\s+DEPLOYED\s+api https:\/\//);
  });

  it('down is blocked by a database without allow_data_loss, and deletes nothing', async () => {
    h.write({ 'strict/shop.yaml': manifest({ allowDataLoss: false }) });
    const r = await h.run(['preview', 'down', 'strict', '--project', 'shop', '--number', '42']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('preview pr-42 was not deleted: it has a database (pg)');
    expect(envNamed('pr-42')).toBeDefined();
  });

  it('down deletes the environment and its database; a second down is a no-op', async () => {
    const id = envNamed('pr-42')!.id;
    const r = await h.run(['preview', 'down', 'infra', '--project', 'shop', '--number', '42']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Preview pr-42 deleted.\n');
    expect(envNamed('pr-42')).toBeUndefined();
    expect(servicesOf(id)).toEqual([]);
    const again = await h.run(['preview', 'down', 'infra', '--project', 'shop', '--number', '42', '--format', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ environment: 'pr-42', deleted: false, already_gone: true });
    expect(envNamed('staging')).toBeDefined();
  });

  it('prune --keep deletes every preview but the kept numbers; --older-than by age; never another environment', async () => {
    for (const n of ['7', '8', '9']) {
      const r = await h.run(['preview', 'up', 'infra', '--project', 'shop', '--number', n, ...FAST]);
      expect(r.code, r.stderr).toBe(0);
    }
    const kept = await h.run(['preview', 'prune', 'infra', '--keep', '7,9']);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toContain('Deleting preview pr-8 of project shop: pull request 8 is not in --keep.');
    expect(Object.values(h.emu.state.environments).map((e) => e.name).sort()).toEqual(['pr-7', 'pr-9', 'staging']);
    const young = await h.run(['preview', 'prune', 'infra', '--older-than', '1h']);
    expect(young.stdout).toBe('No preview to prune.\n');
    // An environment of pr-7's age: move its creation back two days.
    const pr7 = envNamed('pr-7')!;
    h.emu.state.environments[pr7.id] = { ...pr7, created_at: new Date(Date.now() - 2 * 86_400_000).toISOString() };
    const old = await h.run(['preview', 'prune', 'infra', '--older-than', '1d', '--format', 'json']);
    expect(old.code, old.stderr).toBe(0);
    expect(JSON.parse(old.stdout)).toEqual({ deleted: ['pr-7'], blocked: [] });
    const none = await h.run(['preview', 'prune', 'infra', '--keep', '']);
    expect(none.code, none.stderr).toBe(0);
    expect(Object.values(h.emu.state.environments).map((e) => e.name)).toEqual(['staging']);
  });
});
