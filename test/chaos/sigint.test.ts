/**
 * Ctrl-C (SIGINT) to a real `driftless apply` process while writes are in flight: it starts no new
 * call, lets the ones in flight finish (their objects are recorded as applied), prints what was done
 * and what was not, and exits 130. The next apply finishes the job with no duplicate.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness } from '../e2e/helpers.js';
import { census } from '../support/census.js';
import { startProxy, isWrite } from '../support/proxy.js';
import { copyRealistic, referenceCensus, secretEnv } from '../support/realistic.js';
import { killAll, runChild } from '../support/child.js';
import { record } from '../support/reliability.js';

afterEach(() => killAll());

describe('apply interrupted with SIGINT', () => {
  it('finishes the calls in flight, starts no new one, reports done and not done, exits 130; the next apply converges', async () => {
    const ref = await referenceCensus();
    const h = await startHarness();
    const proxy = await startProxy(h.emu.url);
    try {
      const dir = copyRealistic(h);
      const env = { ...secretEnv(), DRIFTLESS_FINGERPRINT_KEY: h.env.DRIFTLESS_FINGERPRINT_KEY!, DRIFTLESS_API_TOKEN: h.env.DRIFTLESS_API_TOKEN!, DRIFTLESS_API_URL: proxy.url };
      // Writes are held at the proxy: they are in flight when Ctrl-C comes.
      let heldCount = 0;
      const twoHeld = new Promise<void>((res) => (proxy.onHold = () => ++heldCount === 2 && res()));
      proxy.rule = ({ method }) => (method !== 'GET' ? 'hold' : undefined);
      const child = runChild(['apply', dir, '--auto-approve', '--poll-interval', '40'], { cwd: h.dir, env });
      await Promise.race([twoHeld, child.exited]);
      expect(heldCount, child.stdout() + child.stderr()).toBeGreaterThanOrEqual(2);
      await new Promise((r) => setTimeout(r, 200)); // let every write the first wave starts arrive
      const inFlight = proxy.held();
      child.proc.kill('SIGINT');
      await child.waitFor('Interrupt received');
      const writesAtInterrupt = proxy.seen.filter(isWrite).length;
      proxy.rule = () => undefined;
      await proxy.release(); // the calls in flight complete

      const { code } = await child.exited;
      const out = child.stdout();
      expect(code, out + child.stderr()).toBe(130);
      // No write was started after Ctrl-C.
      const writesAfter = proxy.seen.filter(isWrite).length - writesAtInterrupt;
      expect(writesAfter).toBe(0);
      // Every write in flight got its answer and is reported as done; the rest as not started.
      const answered = proxy.seen.filter((s) => isWrite(s) && s.status >= 200 && s.status < 300 && !s.path.endsWith('/validate')).length;
      const appliedRows = out.split('\n').filter((l) => /^\s+applied\s/.test(l)).length;
      const notStartedRows = out.split('\n').filter((l) => /^\s+not started\s/.test(l)).length;
      expect(appliedRows, `${out}\nanswered writes:\n${proxy.seen.filter((s) => isWrite(s) && s.status >= 200 && s.status < 300).map((s) => `${s.method} ${s.path} ${s.status}`).join('\n')}`).toBe(answered);
      expect(notStartedRows).toBeGreaterThan(0);
      expect(out).toMatch(/Apply interrupted: \d+ steps? failed, \d+ skipped, \d+ not started\./);
      // A step whose next call was not sent says so (a multi-call step cut between two calls).
      for (const row of out.split('\n').filter((l) => /^\s+failed\s/.test(l))) expect(row).toContain('interrupted before the request was sent');
      expect(out).toContain('Run `driftless apply` again to finish');
      expect(child.stderr()).not.toMatch(/\n\s+at .*\.js:\d+/);

      const again = await h.run(['apply', dir, '--auto-approve', '--poll-interval', '40'], { env });
      expect(again.code, again.stdout + again.stderr).toBe(0);
      const c = await census(h.emu.url, h.emu.tokens.ADMIN);
      expect(c.duplicates).toEqual([]);
      expect(c.counts).toEqual(ref.counts);
      record('sigint', {
        title: 'SIGINT to a real `driftless apply` of examples/realistic while its first writes are held in flight: no write starts after it, the writes in flight finish and are reported applied, the rest not started, exit 130; the next apply converges',
        file: 'test/chaos/sigint.test.ts',
        command: 'npm run test:chaos',
        figures: {
          'writes in flight at SIGINT': inFlight,
          'writes started after SIGINT': writesAfter,
          'reported applied': appliedRows,
          'reported not started': notStartedRows,
          'exit code': code ?? 'none',
          'next apply': again.code === 0 ? 'converged' : 'failed',
          'duplicates found': c.duplicates.length,
        },
      });
    } finally {
      await proxy.close();
      await h.close();
    }
  });
});
