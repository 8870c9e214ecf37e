/**
 * Two applies of the same manifest at the same time (two CI jobs racing): they end with one copy of
 * each resource, and the live state equals the manifest.
 */
import { describe, expect, it } from 'vitest';
import { startHarness } from '../e2e/helpers.js';
import { census } from '../support/census.js';
import { copyRealistic, referenceCensus, secretEnv } from '../support/realistic.js';
import { record } from '../support/reliability.js';

const ROUNDS = Number(process.env.CHAOS_CONCURRENT ?? 5);

describe('concurrent applies', () => {
  it(`two applies of examples/realistic at once, ${ROUNDS} times: one copy of each resource`, async () => {
    const ref = await referenceCensus();
    let bothSucceeded = 0;
    let duplicates = 0;
    let needed = 0;
    let lost = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const h = await startHarness();
      try {
        const dir = copyRealistic(h);
        const env = secretEnv();
        const run = () => h.run(['apply', dir, '--auto-approve', '--poll-interval', '40'], { env });
        const [a, b] = await Promise.all([run(), run()]);
        for (const r of [a, b]) {
          expect(r.stdout + r.stderr).not.toMatch(/\n\s+at .*\.[jt]s:\d+/);
          if (r.code !== 0) {
            // The run that lost the race says which object the other one created first.
            expect(r.stdout + r.stderr).toMatch(/HTTP 409\): conflict: .* already exists/);
            lost++;
          }
        }
        if (a.code === 0 && b.code === 0) bothSucceeded++;
        const c = await census(h.emu.url, h.emu.tokens.ADMIN);
        duplicates += c.duplicates.length;
        expect(c.duplicates, `round ${round}`).toEqual([]);
        expect(c.counts, `round ${round}`).toEqual(ref.counts);
        const p = await h.run(['plan', dir], { env });
        if (!p.stdout.includes('No changes.')) {
          // The loser of a race may leave a deployment to the next run; one more apply finishes it.
          needed++;
          expect((await run()).code).toBe(0);
          expect((await h.run(['plan', dir], { env })).stdout).toContain('No changes.');
        }
      } finally {
        await h.close();
      }
    }
    record('concurrent', {
      title: 'Two `apply` runs of examples/realistic started at the same moment against one emulator: the API lists exactly one copy of each resource, and the live state equals the manifest',
      file: 'test/chaos/concurrent.test.ts',
      command: 'npm run test:chaos',
      figures: { 'rounds (pairs of applies)': ROUNDS, 'rounds where both exited 0': bothSucceeded,
        'runs that lost the race (exit 1, naming the object the other run created)': lost, 'rounds needing a third apply': needed, 'duplicates found': duplicates },
    });
  });
});
