/**
 * Finding 10: `apply --auto-approve --max-destroy abc` printed that the value must be a whole
 * number, then destroyed 3 variables and exited 0; `--timeout xyz` and `--parallelism 1e9` the same.
 * Every bad value of every command is now a usage error before anything runs, checked against a
 * real emulator: exit 1, the option and what is allowed on stderr, no request, nothing destroyed,
 * no file written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from '../e2e/helpers.js';
import { PRUNED, THREE_VARIABLES, countRequests, expectRefusedBeforeRunning, filesIn, liveVariableKeys } from './usage-support.js';

describe('finding 10: bad option values stop the command before it runs', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.write({ 'm/main.yaml': THREE_VARIABLES });
    const first = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
    expect(first.code, first.stderr).toBe(0);
    expect(liveVariableKeys(h)).toEqual(['ONE', 'THREE', 'TWO']);
    // From here, an apply of m would destroy the three variables.
    h.write({ 'm/main.yaml': PRUNED });
  });
  afterAll(async () => h?.close());

  const applyCases: Array<[string, string[], string]> = [
    ['--max-destroy abc', ['--max-destroy', 'abc'], '--max-destroy must be an integer of 0 or more, got abc'],
    ['--max-destroy -1', ['--max-destroy', '-1'], '--max-destroy must be an integer of 0 or more, got -1'],
    ['--max-destroy 1.5', ['--max-destroy', '1.5'], '--max-destroy must be an integer of 0 or more, got 1.5'],
    ['--max-destroy ""', ['--max-destroy', ''], '--max-destroy must be an integer of 0 or more, got ""'],
    ['--max-destroy 2^53+1', ['--max-destroy', '9007199254740993'], '--max-destroy must be an integer of 0 or more, got 9007199254740993'],
    ['--timeout xyz', ['--timeout', 'xyz'], '--timeout must be a duration such as 30m, 90s or 1h, from 1s to 24h, got xyz'],
    ['--timeout 0', ['--timeout', '0'], '--timeout must be a duration such as 30m, 90s or 1h, from 1s to 24h, got 0'],
    ['--timeout 100h', ['--timeout', '100h'], '--timeout must be a duration such as 30m, 90s or 1h, from 1s to 24h, got 100h'],
    ['--parallelism 1e9', ['--parallelism', '1e9'], '--parallelism must be an integer from 1 to 64, got 1e9'],
    ['--parallelism 0', ['--parallelism', '0'], '--parallelism must be an integer from 1 to 64, got 0'],
    ['--parallelism 65', ['--parallelism', '65'], '--parallelism must be an integer from 1 to 64, got 65'],
    ['--parallelism abc', ['--parallelism', 'abc'], '--parallelism must be an integer from 1 to 64, got abc'],
    ['--parallelism 2 --parallelism 3', ['--parallelism', '2', '--parallelism', '3'], '--parallelism was given 2 times; give it once'],
    ['--auth-scheme Basic', ['--auth-scheme', 'Basic'], '--auth-scheme must be one of Token, Bearer, got Basic'],
    ['--poll-interval 0 (hidden)', ['--poll-interval', '0'], '--poll-interval must be an integer from 1 to 600000, got 0'],
  ];
  for (const [name, flags, message] of applyCases) {
    it(`finding 10: apply --auto-approve ${name} exits 1 before any request, destroying nothing`, async () => {
      const requests = countRequests(h);
      const before = filesIn(h.dir);
      const r = await h.run(['apply', 'm', '--auto-approve', ...flags]);
      expectRefusedBeforeRunning(r, { message: `driftless apply: ${message}`, command: 'apply', requests: requests(), dir: h.dir, filesBefore: before });
      expect(liveVariableKeys(h)).toEqual(['ONE', 'THREE', 'TWO']);
    });
  }

  it('finding 10: every bad value is reported at once, one line each', async () => {
    const requests = countRequests(h);
    const r = await h.run(['apply', 'm', '--auto-approve', '--max-destroy', 'abc', '--timeout', 'xyz', '--parallelism', '1e9']);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('driftless apply: --')).sort()).toEqual([
      'driftless apply: --max-destroy must be an integer of 0 or more, got abc',
      'driftless apply: --parallelism must be an integer from 1 to 64, got 1e9',
      'driftless apply: --timeout must be a duration such as 30m, 90s or 1h, from 1s to 24h, got xyz',
    ]);
    expect(requests()).toBe(0);
    expect(liveVariableKeys(h)).toEqual(['ONE', 'THREE', 'TWO']);
  });

  it('finding 10: plan --out with a bad value writes no plan file and sends no request', async () => {
    for (const flags of [['--max-destroy', 'abc'], ['--parallelism', '1e9'], ['--auth-scheme', 'basic']]) {
      const requests = countRequests(h);
      const before = filesIn(h.dir);
      const r = await h.run(['plan', 'm', '--out', 'saved.plan.json', ...flags]);
      expectRefusedBeforeRunning(r, { message: `driftless plan: ${flags[0]} must be`, command: 'plan', requests: requests(), dir: h.dir, filesBefore: before });
    }
  });

  it('finding 10: drift, export and graph refuse a bad --parallelism before any request; export writes nothing', async () => {
    for (const argv of [['drift', 'm', '--json-file', 'drift.json'], ['export', '--out', 'exported'], ['graph', 'm']]) {
      const requests = countRequests(h);
      const before = filesIn(h.dir);
      const r = await h.run([...argv, '--parallelism', '1e9']);
      expectRefusedBeforeRunning(r, { message: `driftless ${argv[0]}: --parallelism must be an integer from 1 to 64, got 1e9`, command: argv[0], requests: requests(), dir: h.dir, filesBefore: before });
    }
  });

  it('finding 10: validate --remote refuses a bad --auth-scheme before reading the API', async () => {
    const requests = countRequests(h);
    const before = filesIn(h.dir);
    const r = await h.run(['validate', 'm', '--remote', '--auth-scheme', 'Basic']);
    expectRefusedBeforeRunning(r, { message: 'driftless validate: --auth-scheme must be one of Token, Bearer, got Basic', command: 'validate', requests: requests(), dir: h.dir, filesBefore: before });
  });

  it('finding 10: serve and demo refuse bad numbers without starting an emulator', async () => {
    // A started emulator prints its JSON line on stdout and then serves until interrupted: a
    // refusal returns at once with nothing on stdout.
    for (const [argv, message] of [
      [['serve', '--port', '70000'], '--port must be an integer from 0 to 65535, got 70000'],
      [['serve', '--port', 'abc'], '--port must be an integer from 0 to 65535, got abc'],
      [['serve', '--rate-limit', '0'], '--rate-limit must be an integer of 1 or more, got 0'],
      [['serve', '--latency', '1e3'], '--latency must be an integer from 0 to 600000, got 1e3'],
      [['serve', '--fault-rate', 'NaN'], '--fault-rate must be a number from 0 to 1, got NaN'],
      [['serve', '--fault-seed', '-3'], '--fault-seed must be an integer of 0 or more, got -3'],
      [['demo', '--deploy-duration', 'abc'], '--deploy-duration must be an integer from 0 to 600000, got abc'],
    ] as const) {
      const before = filesIn(h.dir);
      const r = await h.run([...argv]);
      expectRefusedBeforeRunning(r, { message: `driftless ${argv[0]}: ${message}`, command: argv[0], dir: h.dir, filesBefore: before });
    }
  });

  it('finding 10: the same apply with valid values does destroy the three variables (the cases above would have)', async () => {
    const requests = countRequests(h);
    const r = await h.run(['apply', 'm', '--auto-approve', '--max-destroy', '3', '--timeout', '5m', '--parallelism', '4', ...FAST]);
    expect(r.code, r.stderr).toBe(0);
    // The counter sees the requests of a command that runs (reads, then three deletes).
    expect(requests()).toBeGreaterThan(3);
    expect(r.stdout).toContain('3 destroyed');
    expect(liveVariableKeys(h)).toEqual([]);
  });
});
