/**
 * Secret hygiene canary. Every secret value and the API token are unique random strings; the
 * commands run with every output they have (human, JSON, markdown, GitHub annotations, JSON event
 * streams, saved plans, drift reports, exported manifests), with failures forced along the way
 * (injected 5xx and dropped connections, a failing deployment, a refused token, a token that cannot
 * travel in a header, a manifest error next to a secret written in clear, a stale saved plan, a secret
 * changed in the console). Then everything produced (stdout, stderr, every file written, the
 * emulator's log lines) is searched for every canary: none may appear.
 */
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startHarness, type Harness, type RunResult } from '../e2e/helpers.js';
import { lineLogger } from '../../src/emulator/context.js';
import { startEmulator } from '../../src/emulator/server.js';
import { createApiClient } from '../../src/api/index.js';
import { portFromClient } from '../../src/live/api-port.js';
import { editProjectVariable } from '../../src/demo/console.js';
import { runDemo } from '../../src/demo/run-demo.js';
import { main } from '../../src/cli/main.js';
import { copyRealistic, EXAMPLE } from '../support/realistic.js';
import { record } from '../support/reliability.js';

const rnd = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;

interface Output {
  what: string;
  text: string;
}

function filesUnder(dir: string, skip: Set<string>, root = dir): Output[] {
  const out: Output[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (skip.has(p)) continue;
    const st = statSync(p);
    if (st.isDirectory()) out.push(...filesUnder(p, skip, root));
    else out.push({ what: `file ${relative(root, p)}`, text: readFileSync(p, 'latin1') });
  }
  return out;
}

describe('secret canary', () => {
  it('no secret value and no token appears in anything driftless or the emulator produces, failures included', async () => {
    const logs: string[] = [];
    const h: Harness = await startHarness({ logger: lineLogger((s) => logs.push(s)) });
    const outputs: Output[] = [];
    const canaries: Record<string, string> = {};
    let commands = 0;
    try {
      const token = rnd('canarytoken_');
      h.emu.state.tokens = [...h.emu.state.tokens, { token, scope: 'ADMIN', name: 'canary', organization_id: h.emu.organizationId }];
      const secrets = {
        STRIPE_API_KEY: rnd('sk_live_canary_'),
        SESSION_SECRET: rnd('session_canary_'),
        SLACK_WEBHOOK_URL: `https://hooks.slack.com/services/T0/B0/${rnd('canary')}`,
        WEBHOOK_SIGNING_SECRET: rnd('whsec_canary_'),
        DRIFTLESS_FINGERPRINT_KEY: rnd('fpkey_canary_'),
      };
      Object.assign(canaries, secrets, { DRIFTLESS_API_TOKEN: token });
      // The most verbose level: every API exchange is logged, and none of it may carry a secret.
      const env = { ...secrets, DRIFTLESS_API_TOKEN: token, DRIFTLESS_LOG_LEVEL: 'debug' };
      const dir = copyRealistic(h);
      const run = async (what: string, argv: string[], extra: Record<string, string> = {}): Promise<RunResult> => {
        const r = await h.run(argv, { env: { ...env, ...extra } });
        commands++;
        outputs.push({ what: `${what} stdout`, text: r.stdout }, { what: `${what} stderr`, text: r.stderr });
        return r;
      };

      // validate, every format; and a manifest with a secret written in clear next to an error.
      for (const f of ['human', 'github', 'json']) expect((await run(`validate ${f}`, ['validate', dir, '--format', f])).code).toBe(0);
      const clear = rnd('clear_secret_');
      canaries.clear = clear;
      mkdirSync(join(h.dir, 'broken'), { recursive: true });
      const brokenFile = join(h.dir, 'broken/main.yaml');
      writeFileSync(brokenFile, ['version: 1', 'projects:', '  - name: p', '    variables:', `      - key: TOKEN`, `        value: ${clear}`, '        secret: true', '        mount_path: 5', `      - {key: "bad key", value: ${clear}, secret: true}`, '    environments: nope', ''].join('\n'));
      for (const f of ['human', 'github', 'json']) expect((await run(`validate broken ${f}`, ['validate', 'broken', '--format', f])).code).toBe(1);
      expect((await run('plan broken', ['plan', 'broken'])).code).toBe(1);

      // plan, every format, saved.
      for (const f of ['human', 'json', 'markdown']) await run(`plan ${f}`, ['plan', dir, '--format', f, '--detailed-exitcode']);
      expect((await run('plan --out', ['plan', dir, '--out', 'saved.plan.json'])).code).toBe(0);

      // a refused token, and a token that cannot be sent.
      const wrong = rnd('wrongtoken_');
      const unsendable = `${rnd('bad token ')}\u00e9`;
      canaries.wrongToken = wrong;
      canaries.unsendableToken = unsendable;
      expect((await run('plan with a refused token', ['plan', dir], { DRIFTLESS_API_TOKEN: wrong })).code).toBe(1);
      expect((await run('plan with an unsendable token', ['plan', dir], { DRIFTLESS_API_TOKEN: unsendable })).code).toBe(1);
      expect((await run('apply with a refused token', ['apply', dir, '--auto-approve', '--json'], { DRIFTLESS_API_TOKEN: wrong })).code).toBe(1);

      // apply through faults and a failing deployment (JSON events), then cleanly.
      h.emu.ctx.options.faultRate = 0.3;
      h.emu.ctx.options.failDeployGlob = 'nightly-*';
      await run('apply under faults (json)', ['apply', dir, '--auto-approve', '--json', '--poll-interval', '40']);
      await run('apply under faults (human)', ['apply', dir, '--auto-approve', '--poll-interval', '40']);
      h.emu.ctx.options.faultRate = 0;
      const failed = await run('apply with a failing deployment', ['apply', dir, '--auto-approve', '--poll-interval', '40']);
      expect(failed.code).toBe(1);
      h.emu.ctx.options.failDeployGlob = undefined;
      expect((await run('apply', ['apply', dir, '--auto-approve', '--poll-interval', '40'])).code).toBe(0);
      await run('apply of a stale saved plan', ['apply', 'saved.plan.json']);

      // a secret changed in the console, then drift in every format.
      const changed = rnd('console_secret_');
      canaries.changedInConsole = changed;
      const console = createApiClient({ baseUrl: h.emu.url, token: h.emu.tokens.ADMIN });
      await editProjectVariable(portFromClient(console), h.emu.organizationId, 'shop', 'STRIPE_API_KEY', changed);
      await console.close();
      for (const f of ['human', 'json', 'markdown']) expect((await run(`drift ${f}`, ['drift', dir, '--format', f, '--json-file', `drift-${f}.json`])).code).toBe(2);
      await run('plan after the console change', ['plan', dir, '--format', 'json']);
      // a secret changed in the environment: shown as changed, never its value.
      const rotated = rnd('rotated_');
      canaries.rotated = rotated;
      await run('plan with a rotated secret', ['plan', dir, '--format', 'markdown'], { SESSION_SECRET: rotated });

      // export, to stdout and to a directory; graph.
      expect((await run('export', ['export'])).code).toBe(0);
      expect((await run('export --out', ['export', '--out', 'exported', '--layout', 'directory'])).code).toBe(0);
      await run('graph', ['graph', dir, '--format', 'mermaid']);

      // the demo, with its own generated secrets (read from the environment it hands its commands) and a canary token.
      const demoToken = rnd('demotoken_');
      canaries.demoToken = demoToken;
      let demoText = '';
      const demoSecrets = new Set<string>();
      const demo = await runDemo({
        examplePath: EXAMPLE,
        ciExamplesPath: 'examples/github-actions/',
        baseEnv: {},
        say: (t) => (demoText += t),
        runCommand: async (argv, cmdEnv) => {
          for (const k of ['STRIPE_API_KEY', 'SESSION_SECRET', 'SLACK_WEBHOOK_URL', 'WEBHOOK_SIGNING_SECRET', 'DRIFTLESS_FINGERPRINT_KEY']) if (cmdEnv[k]) demoSecrets.add(cmdEnv[k]!);
          const io = { stdout: { write: (s: string) => ((demoText += s), true) }, stderr: { write: (s: string) => ((demoText += s), true) }, env: cmdEnv, cwd: h.dir };
          return main(argv, io);
        },
        startEmulator: async () => {
          const em = await startEmulator({ deployDurationMs: 150, logger: lineLogger((s) => logs.push(s)) });
          em.state.tokens = [...em.state.tokens, { token: demoToken, scope: 'ADMIN', name: 'canary', organization_id: em.organizationId }];
          const client = createApiClient({ baseUrl: em.url, token: demoToken });
          return { url: em.url, organizationId: em.organizationId, token: demoToken, consoleApi: portFromClient(client), close: async () => (await client.close(), await em.close()) };
        },
      });
      commands += 4;
      expect(demo.apply).toBe(0);
      expect(demo.drift).toBe(2);
      expect(demoSecrets.size).toBeGreaterThanOrEqual(4);
      [...demoSecrets].forEach((s, i) => (canaries[`demo secret ${i + 1}`] = s));
      outputs.push({ what: 'demo output', text: demoText });

      // Everything written under the working directory, except the manifests given as input.
      const inputs = new Set([brokenFile, join(h.dir, dir)]);
      const files = filesUnder(h.dir, inputs);
      expect(files.some((f) => f.what.includes('saved.plan.json'))).toBe(true);
      expect(files.some((f) => f.what.includes('exported'))).toBe(true);
      expect(files.some((f) => f.what.includes('drift-json.json'))).toBe(true);
      outputs.push(...files, { what: 'emulator log', text: logs.join('') });

      const leaks: string[] = [];
      for (const o of outputs) for (const [name, value] of Object.entries(canaries)) if (o.text.includes(value)) leaks.push(`${name} in ${o.what}`);
      expect(leaks).toEqual([]);
      // The search is real: the secrets did reach the API (the emulator stores them).
      expect(Object.values(h.emu.state.secretValues)).toContain(changed);

      record('canary', {
        title: 'Secret canary, at the most verbose log level (`DRIFTLESS_LOG_LEVEL=debug`): unique random secret values and tokens through validate (3 formats), plan (3 formats, `--out`), apply (human and JSON events), drift (3 formats, `--json-file`), export (stdout and directory), graph and the demo, with injected faults, a failing deployment, refused and unsendable tokens, a clear-text secret next to a manifest error, a stale saved plan, a secret changed in the console and one rotated in the environment; stdout, stderr, every file written and the emulator log searched',
        file: 'test/chaos/canary.test.ts',
        command: 'npm run test:chaos',
        figures: {
          'commands run': commands,
          'canary strings': Object.keys(canaries).length,
          'outputs searched': outputs.length,
          'bytes searched': outputs.reduce((a, o) => a + o.text.length, 0),
          'emulator log lines': logs.length,
          'secrets leaked': leaks.length,
        },
      });
    } finally {
      await h.close();
    }
  });
});
