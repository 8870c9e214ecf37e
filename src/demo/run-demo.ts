/**
 * The demo, as a sequence of steps over injected capabilities (so it can be tested in-process and
 * never touches the real process): start an emulator, plan the realistic example, apply it with the
 * live progress view, change two things "in the console", and let `drift` find them.
 *
 * The example's secrets are generated here and handed to the commands through their environment;
 * they are never printed. Returns the exit code of each step, for the command and for tests.
 */
import { randomBytes } from 'node:crypto';
import type { ApiPort } from '../live/api-port.js';
import { editApplicationCpu, editProjectVariable } from './console.js';

export interface DemoEmulator {
  url: string;
  organizationId: string;
  /** A token allowed to read, write and deploy. */
  token: string;
  /** An API port for the "console" changes, authenticated as the console user (the emulator's CONSOLE token). */
  consoleApi: ApiPort;
  close(): Promise<void>;
}

export interface DemoDeps {
  startEmulator(): Promise<DemoEmulator>;
  /** Runs one driftless command (argv without the program name) with this environment. */
  runCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<number>;
  /** Where narration goes. */
  say(text: string): void;
  /** The realistic example directory, as shown to the user. */
  examplePath: string;
  /** The CI examples of the same installation (examples/github-actions), as shown to the user. */
  ciExamplesPath: string;
  /** The user's environment (colour settings pass through; API settings are replaced). */
  baseEnv: NodeJS.ProcessEnv;
}

export interface DemoResult {
  plan: number;
  apply: number;
  drift: number;
  changes: string[];
}

/** Secrets the realistic example reads with ${env:...}: demo values, generated per run. */
export const EXAMPLE_SECRETS = ['STRIPE_API_KEY', 'SESSION_SECRET', 'SLACK_WEBHOOK_URL', 'WEBHOOK_SIGNING_SECRET'] as const;

function demoSecrets(): Record<string, string> {
  const r = () => randomBytes(18).toString('base64url');
  return {
    STRIPE_API_KEY: `sk_test_demo_${r()}`,
    SESSION_SECRET: r(),
    SLACK_WEBHOOK_URL: `https://hooks.slack.com/services/DEMO/DEMO/${r()}`,
    WEBHOOK_SIGNING_SECRET: r(),
    DRIFTLESS_FINGERPRINT_KEY: r() + r(),
  };
}

export async function runDemo(deps: DemoDeps): Promise<DemoResult> {
  const { say } = deps;
  const step = (n: number, title: string, detail: string) => say(`\n━━ ${n}/4  ${title}\n   ${detail}\n\n`);
  say('driftless demo: a local emulator of the Infrastructure Management API, the realistic example manifest,\nand the GitOps loop: plan -> apply -> a change made outside Git -> drift.\n');
  const emu = await deps.startEmulator();
  try {
    const env: NodeJS.ProcessEnv = { ...deps.baseEnv, ...demoSecrets(), DRIFTLESS_API_URL: emu.url, DRIFTLESS_API_TOKEN: emu.token };
    say(`\nEmulator listening on ${emu.url} (organization ${emu.organizationId}).\nThe example's secrets (${EXAMPLE_SECRETS.join(', ')}) are set to generated demo values, never printed.\n`);

    step(1, 'plan', `driftless plan ${deps.examplePath}: what apply would create, change and deploy (read-only).`);
    const plan = await deps.runCommand(['plan', deps.examplePath], env);

    step(2, 'apply', `driftless apply ${deps.examplePath} --auto-approve: create everything, then deploy stage by stage.`);
    const apply = await deps.runCommand(['apply', deps.examplePath, '--auto-approve', '--poll-interval', '200'], env);

    step(3, 'a change in the console', 'Someone edits the platform by hand, outside Git (straight through the API):');
    const changes = [
      (await editProjectVariable(emu.consoleApi, emu.organizationId, 'shop', 'LOG_LEVEL', 'trace')).description,
      (await editApplicationCpu(emu.consoleApi, emu.organizationId, 'shop', 'production', 'api', 2000)).description,
    ];
    for (const c of changes) say(`   • ${c}\n`);

    step(4, 'drift', `driftless drift ${deps.examplePath}: the nightly job; exit 2 means the platform no longer matches Git.`);
    const drift = await deps.runCommand(['drift', deps.examplePath], env);
    say(`\ndrift exited with ${drift} (${drift === 2 ? 'drift found, as expected' : drift === 0 ? 'in sync' : 'error'}).\n`);
    // Only what this installation has, and no apply: the emulator stops with the demo, so an
    // apply typed now would go to whatever DRIFTLESS_API_URL names (a real organization, maybe).
    const next: Array<[string, string]> = [
      ['driftless serve', 'this emulator, standalone: set DRIFTLESS_API_URL and DRIFTLESS_API_TOKEN to the URL and token it prints to plan, apply and drift the example yourself'],
      [`driftless validate ${deps.examplePath}`, 'checks a manifest offline (no API call)'],
      ['driftless export --out live.yaml', 'writes what runs in an organization as a manifest (read-only; to adopt it)'],
      [deps.ciExamplesPath, 'plan on pull requests, apply on merge, drift every night (GitHub; gitlab-ci/ beside it)'],
    ];
    const width = Math.max(...next.map(([c]) => c.length));
    say(['', 'What next:', ...next.map(([c, d]) => `  ${c.padEnd(width)}  ${d}`), ''].join('\n'));
    return { plan, apply, drift, changes };
  } finally {
    await emu.close();
  }
}
