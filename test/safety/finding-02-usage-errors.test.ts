/**
 * Finding 2: usage errors did not stop a command. `plan PATH --detailed-exitcod` printed "Unknown
 * arguments", ran the plan and exited 0 with changes pending; `plan --format xml` printed a human
 * plan; `apply --auto-approve --autoapprove` applied; `plan -h` ran the plan. Every usage error of
 * every command now exits 1 before anything runs, checked against a real emulator: the usage
 * message on stderr, no request, nothing destroyed, no file written; `-h` is help and runs nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';
import { PRUNED, THREE_VARIABLES, countRequests, expectRefusedBeforeRunning, filesIn, liveVariableKeys } from './usage-support.js';

describe('finding 2: usage errors stop the command before it runs', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': THREE_VARIABLES });
    const first = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(first.code, first.stderr).toBe(0);
    // From here, plan has changes (3 to destroy) and an apply of m would destroy the three variables.
    h.write({ 'm/main.yaml': PRUNED });
  });
  afterAll(async () => h?.close());

  const cases: Array<[string, string[], string]> = [
    // The reported cases.
    ['plan PATH --detailed-exitcod', ['plan', 'm', '--detailed-exitcod'], 'driftless plan: unknown option --detailed-exitcod (did you mean --detailed-exitcode?)'],
    ['plan --format xml', ['plan', 'm', '--format', 'xml'], 'driftless plan: --format must be one of "human", "json", "markdown", "github", got "xml"'],
    ['apply --auto-approve --autoapprove', ['apply', 'm', '--auto-approve', '--autoapprove'], 'driftless apply: unknown option --autoapprove (did you mean --auto-approve?)'],
    // Unknown command, option, short option, negated option; values missing, empty or given twice.
    ['an unknown command', ['plna', 'm'], 'driftless: unknown command "plna" (did you mean plan?)'],
    ['an unknown short option', ['apply', 'm', '--auto-approve', '-y'], 'driftless apply: unknown option -y'],
    ['an unknown negated option', ['apply', 'm', '--auto-approve', '--no-approve'], 'driftless apply: unknown option --no-approve'],
    ['an option of another command', ['apply', 'm', '--auto-approve', '--detailed-exitcode'], 'driftless apply: unknown option --detailed-exitcode'],
    ['a missing value', ['apply', 'm', '--auto-approve', '--max-destroy'], 'driftless apply: --max-destroy needs a value'],
    ['a missing value before another option', ['apply', 'm', '--timeout', '--auto-approve'], 'driftless apply: --timeout needs a value'],
    ['an empty --api-url', ['apply', 'm', '--auto-approve', `--api-url=`], 'driftless apply: --api-url needs a value, got an empty one'],
    ['a choice given twice', ['plan', 'm', '--format', 'json', '--format', 'json'], 'driftless plan: --format was given 2 times; give it once'],
    ['drift --format xml', ['drift', 'm', '--format', 'xml'], 'driftless drift: --format must be one of "human", "json", "markdown", got "xml"'],
    ['drift with an unknown option', ['drift', 'm', '--formt', 'json'], 'driftless drift: unknown option --formt (did you mean --format?)'],
    ['preview with an unknown action', ['preview', 'deploy', 'm'], 'driftless preview: preview <action> must be one of "up", "down", "list", "prune", got "deploy"'],
    ['graph --format svg', ['graph', 'm', '--format', 'svg'], 'driftless graph: --format must be one of "dot", "mermaid", got "svg"'],
    ['validate --remote with an unknown option', ['validate', 'm', '--remote', '--remotee'], 'driftless validate: unknown option --remotee (did you mean --remote?)'],
    ['validate --format xml', ['validate', 'm', '--remote', '--format', 'xml'], 'driftless validate: --format must be one of "human", "github", "json", got "xml"'],
    ['export --layout tree', ['export', '--layout', 'tree'], 'driftless export: --layout must be one of file, directory, got tree'],
    ['export with an unknown option', ['export', '--projet', 'safety'], 'driftless export: unknown option --projet (did you mean --project?)'],
    ['a positional a command does not take', ['export', 'm'], 'driftless export: unexpected argument "m": export takes no positional argument besides its options'],
    ['no command', [], 'driftless: Give a command: validate, plan, show, apply, drift, preview, export, graph, serve, demo.'],
  ];
  for (const [name, argv, message] of cases) {
    it(`finding 2: ${name} exits 1 with the usage error, before any request`, async () => {
      const requests = countRequests(h);
      const before = filesIn(h.dir);
      const r = await h.run(argv);
      const command = ['plan', 'apply', 'drift', 'graph', 'validate', 'export', 'preview'].includes(argv[0]!) ? argv[0] : undefined;
      expectRefusedBeforeRunning(r, { message, command, requests: requests(), dir: h.dir, filesBefore: before });
      expect(liveVariableKeys(h)).toEqual(['ONE', 'THREE', 'TWO']);
    });
  }

  it('finding 2: a usage error in a command line that writes files writes none', async () => {
    for (const argv of [
      ['plan', 'm', '--out', 'saved.plan.json', '--detailed-exitcod'],
      ['plan', 'm', '--out', 'saved.plan.json', '--format', 'xml'],
      ['plan', 'm', '--out'],
      ['drift', 'm', '--json-file', 'drift.json', '--bogus'],
      ['export', '--out', 'exported', '--layout', 'tree'],
    ]) {
      const requests = countRequests(h);
      const before = filesIn(h.dir);
      const r = await h.run(argv);
      expectRefusedBeforeRunning(r, { message: `driftless ${argv[0]}: `, command: argv[0], requests: requests(), dir: h.dir, filesBefore: before });
    }
  });

  it('finding 2: serve and demo with a usage error start no emulator', async () => {
    // A started emulator prints its JSON line on stdout and serves until interrupted.
    for (const [argv, message] of [
      [['serve', '--prot', '8080'], 'driftless serve: unknown option --prot (did you mean --port?)'],
      [['serve', '--data'], 'driftless serve: --data needs a value'],
      [['demo', '--deploy-durations', '40'], 'driftless demo: unknown option --deploy-durations (did you mean --deploy-duration?)'],
    ] as const) {
      const before = filesIn(h.dir);
      const r = await h.run([...argv]);
      expectRefusedBeforeRunning(r, { message, command: argv[0], dir: h.dir, filesBefore: before });
    }
  });

  it('finding 2: plan -h shows the help of plan, exits 0 and sends no request', async () => {
    for (const argv of [['plan', 'm', '-h'], ['plan', 'm', '--detailed-exitcode', '-h'], ['help', 'plan']]) {
      const requests = countRequests(h);
      const r = await h.run(argv);
      expect(r.code).toBe(0);
      expect(r.stdout.split('\n')[0]).toBe('driftless plan [paths..]');
      expect(r.stdout).toContain('--detailed-exitcode');
      expect(r.stdout).not.toContain('to destroy');
      expect(r.stderr).toBe('');
      expect(requests()).toBe(0);
    }
  });

  it('finding 2: apply -h shows the help of apply and destroys nothing', async () => {
    const requests = countRequests(h);
    const r = await h.run(['apply', 'm', '--auto-approve', '-h']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('driftless apply [paths..]');
    expect(requests()).toBe(0);
    expect(liveVariableKeys(h)).toEqual(['ONE', 'THREE', 'TWO']);
  });

  it('finding 2: the same plan spelt right runs: 3 to destroy, exit 2 under --detailed-exitcode (the cases above would have run it)', async () => {
    const requests = countRequests(h);
    const r = await h.run(['plan', 'm', '--detailed-exitcode']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toContain('3 to destroy');
    expect(requests()).toBeGreaterThan(0);
  });
});
