/**
 * `driftless apply` (a real process) killed with SIGKILL at 20 random points of an apply of
 * examples/realistic: at the chosen request the proxy holds the request, the process is killed,
 * then the request reaches the API (so a write killed in flight is committed with nobody to hear
 * the answer, the worst case). The next apply converges: a plan then says "No changes.", and the
 * API lists exactly what a clean apply creates, with no duplicate.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../e2e/helpers.js';
import { census, type Census } from '../support/census.js';
import { startProxy, isWrite, type Proxy, type Seen } from '../support/proxy.js';
import { copyRealistic, referenceCensus, secretEnv } from '../support/realistic.js';
import { killAll, runChild, seeded } from '../support/child.js';
import { record } from '../support/reliability.js';

const POINTS = Number(process.env.CHAOS_KILLS ?? 20);
const POOL = Number(process.env.CHAOS_POOL ?? 4);
const POLL = ['--poll-interval', '40'];

afterEach(() => killAll());

interface Tally {
  killedDuringWrite: number;
  killedDuringRead: number;
  objectsBeforeKill: number;
  converged: number;
  duplicates: number;
  lost: number;
}

/** Requests of one clean apply (the range kill points are drawn from). */
async function requestsOfOneApply(): Promise<number> {
  const h = await startHarness();
  const proxy = await startProxy(h.emu.url);
  try {
    const dir = copyRealistic(h);
    const r = await h.run(['apply', dir, '--auto-approve', ...POLL], { env: { ...secretEnv(), DRIFTLESS_API_URL: proxy.url } });
    expect(r.code).toBe(0);
    return proxy.seen.length;
  } finally {
    await proxy.close();
    await h.close();
  }
}

async function killAt(k: number, ref: Census, t: Tally): Promise<void> {
  const h: Harness = await startHarness();
  const proxy: Proxy = await startProxy(h.emu.url);
  try {
    const dir = copyRealistic(h);
    const env = { ...secretEnv(), DRIFTLESS_FINGERPRINT_KEY: h.env.DRIFTLESS_FINGERPRINT_KEY!, DRIFTLESS_API_TOKEN: h.env.DRIFTLESS_API_TOKEN!, DRIFTLESS_API_URL: proxy.url };
    let heldEntry: Seen | undefined;
    const held = new Promise<void>((res) => (proxy.onHold = (s) => ((heldEntry = s), res())));
    // Request k is held; anything sent after it waits forever (the process is about to die).
    proxy.rule = ({ n }) => (n === k ? 'hold' : n > k ? 'hang' : undefined);
    const child = runChild(['apply', dir, '--auto-approve', ...POLL], { cwd: h.dir, env });
    await Promise.race([held, child.exited]);
    expect(heldEntry, `the apply ended before request ${k}:\n${child.stdout()}\n${child.stderr()}`).toBeDefined();
    child.proc.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');
    if (isWrite(heldEntry!)) t.killedDuringWrite++;
    else t.killedDuringRead++;
    proxy.rule = () => undefined;
    await proxy.release(); // the killed process's last request reaches the API after all
    const before = await census(h.emu.url, h.emu.tokens.ADMIN);
    t.objectsBeforeKill += Object.values(before.counts).reduce((a, b) => a + b, 0);

    const again = await h.run(['apply', dir, '--auto-approve', ...POLL], { env });
    expect(again.code, `kill at request ${k}:\n${again.stdout}\n${again.stderr}`).toBe(0);
    const plan = await h.run(['plan', dir], { env });
    expect(plan.stdout, `kill at request ${k}`).toContain('No changes.');
    const c = await census(h.emu.url, h.emu.tokens.ADMIN);
    t.duplicates += c.duplicates.length;
    for (const [kind, n] of Object.entries(ref.counts)) if ((c.counts[kind] ?? 0) < n) t.lost += n - (c.counts[kind] ?? 0);
    expect(c.duplicates, `kill at request ${k}`).toEqual([]);
    expect(c.counts, `kill at request ${k}`).toEqual(ref.counts);
    // Every deployment the manifest asks for ran to the end.
    for (const st of Object.values(h.emu.state.serviceStatuses)) expect(st.state, `kill at request ${k}`).toBe('DEPLOYED');
    t.converged++;
  } finally {
    await proxy.close();
    await h.close();
  }
}

describe('apply killed with SIGKILL', () => {
  it(`at ${POINTS} random points, the next apply converges with no duplicate and nothing lost`, async () => {
    const ref = await referenceCensus();
    const total = await requestsOfOneApply();
    const rand = seeded(20261122);
    // Deployment polls make the count vary a little from run to run: draw from the first three quarters.
    const range = Math.floor(total * 0.75);
    const points = Array.from({ length: POINTS }, () => 1 + Math.floor(rand() * range));
    const t: Tally = { killedDuringWrite: 0, killedDuringRead: 0, objectsBeforeKill: 0, converged: 0, duplicates: 0, lost: 0 };
    const queue = [...points];
    await Promise.all(Array.from({ length: POOL }, async () => {
      for (let k = queue.shift(); k !== undefined; k = queue.shift()) await killAt(k, ref, t);
    }));
    expect(t.converged).toBe(POINTS);
    record('kill', {
      title: `\`driftless apply\` of examples/realistic (a real process) killed with SIGKILL while its request number k was in flight (k drawn at random from the first ${Math.floor(total * 0.75)} of the ${total} requests of a clean apply; the request then still reaches the API); the next apply converges, a plan says No changes, the API lists what a clean apply creates`,
      file: 'test/chaos/kill.test.ts',
      command: 'npm run test:chaos',
      figures: {
        'kill points': POINTS,
        'request numbers killed at': [...points].sort((a, b) => a - b).join(' '),
        'killed during a write': t.killedDuringWrite,
        'killed during a read': t.killedDuringRead,
        'objects existing after the kills (sum)': t.objectsBeforeKill,
        'converged in the next run': `${t.converged}/${POINTS}`,
        'duplicates found': t.duplicates,
        'resources lost': t.lost,
      },
    });
  });
});
