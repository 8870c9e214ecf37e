import { describe, expect, it } from 'vitest';
import { executeSteps, type Step } from '../../src/apply/executor.js';

/** A step whose completion the test controls, recording when it started. */
function controlled(id: string, dependsOn: string[] = [], log: string[] = []) {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  let started = false;
  const gate = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const step: Step = {
    id,
    dependsOn,
    run: async () => {
      started = true;
      log.push(`start ${id}`);
      await gate;
      log.push(`end ${id}`);
    },
  };
  return { step, resolve: () => resolve(), reject: (e: unknown) => reject(e), isStarted: () => started };
}

const tick = () => new Promise<void>((r) => setImmediate(r));

function instant(id: string, dependsOn: string[], log: string[], fail = false): Step {
  return {
    id,
    dependsOn,
    run: async () => {
      log.push(id);
      if (fail) throw new Error(`${id} broke`);
    },
  };
}

/** `n` independent steps that record the most of them ever running at once. */
function concurrencyProbe(n: number): { steps: Step[]; peak: () => number } {
  let running = 0;
  let peak = 0;
  const steps: Step[] = Array.from({ length: n }, (_, i) => ({
    id: `s${i}`,
    dependsOn: [],
    run: async () => {
      running++;
      peak = Math.max(peak, running);
      await tick();
      running--;
    },
  }));
  return { steps, peak: () => peak };
}

describe('executeSteps', () => {
  it('runs parents before children and keeps the caller order among ready steps', async () => {
    const log: string[] = [];
    const steps = [
      instant('project', [], log),
      instant('env-a', ['project'], log),
      instant('env-b', ['project'], log),
      instant('svc', ['env-a'], log),
      instant('var', ['svc', 'env-b'], log),
    ];
    const r = await executeSteps(steps, { parallelism: 1 });
    expect(log).toEqual(['project', 'env-a', 'env-b', 'svc', 'var']);
    expect(r.applied).toEqual(log);
    expect(r.failed).toEqual([]);
    expect(r.skipped).toEqual([]);
    expect(r.notStarted).toEqual([]);
    expect(r.interrupted).toBe(false);
  });

  it('never runs more than `parallelism` steps at once', async () => {
    const { steps, peak } = concurrencyProbe(20);
    const r = await executeSteps(steps, { parallelism: 3 });
    expect(peak()).toBe(3);
    expect(r.applied).toHaveLength(20);
  });

  it('starts independent steps at once, up to the limit', async () => {
    const a = controlled('a');
    const b = controlled('b');
    const c = controlled('c', ['a']);
    const p = executeSteps([a.step, b.step, c.step], { parallelism: 8 });
    await tick();
    expect(a.isStarted()).toBe(true);
    expect(b.isStarted()).toBe(true);
    expect(c.isStarted()).toBe(false);
    a.resolve();
    await tick();
    await tick();
    expect(c.isStarted()).toBe(true);
    b.resolve();
    c.resolve();
    const r = await p;
    expect(r.applied.sort()).toEqual(['a', 'b', 'c']);
  });

  it('skips everything that depends on a failed step, transitively, and goes on with the rest', async () => {
    const log: string[] = [];
    const steps = [
      instant('project', [], log),
      instant('env', ['project'], log, true),
      instant('svc', ['env'], log),
      instant('var', ['svc'], log),
      instant('webhook', [], log),
      instant('other-env', ['project'], log),
    ];
    const r = await executeSteps(steps, { parallelism: 2 });
    expect(r.failed.map((f) => f.id)).toEqual(['env']);
    expect((r.failed[0]!.error as Error).message).toBe('env broke');
    expect(r.skipped).toEqual([
      { id: 'svc', because: 'env' },
      { id: 'var', because: 'env' },
    ]);
    expect(r.applied.sort()).toEqual(['other-env', 'project', 'webhook']);
    expect(log).not.toContain('svc');
    expect(log).not.toContain('var');
  });

  it('on abort, starts nothing new, waits for the running steps and reports the rest as not started', async () => {
    const ac = new AbortController();
    const a = controlled('a');
    const b = controlled('b', ['a']);
    const c = controlled('c');
    const p = executeSteps([a.step, b.step, c.step], { parallelism: 1, signal: ac.signal });
    await tick();
    expect(a.isStarted()).toBe(true);
    ac.abort();
    a.resolve();
    const r = await p;
    expect(r.interrupted).toBe(true);
    expect(r.applied).toEqual(['a']);
    expect(b.isStarted()).toBe(false);
    expect(c.isStarted()).toBe(false);
    expect(r.notStarted).toEqual(['b', 'c']);
  });

  it('reports hooks for every start and end', async () => {
    const events: string[] = [];
    const log: string[] = [];
    await executeSteps([instant('a', [], log), instant('b', ['a'], log, true)], {
      parallelism: 1,
      onStepStart: (id) => events.push(`start ${id}`),
      onStepEnd: (id, o) => events.push(`${o.ok ? 'ok' : 'fail'} ${id}`),
    });
    expect(events).toEqual(['start a', 'ok a', 'start b', 'fail b']);
  });

  it('rejects a cycle, a duplicate id and an unknown dependency as programming errors', async () => {
    const log: string[] = [];
    await expect(executeSteps([instant('a', ['b'], log), instant('b', ['a'], log)])).rejects.toThrow(/cycle: a -> b -> a/);
    await expect(executeSteps([instant('a', [], log), instant('a', [], log)])).rejects.toThrow(/duplicate step id a/);
    await expect(executeSteps([instant('a', ['zz'], log)])).rejects.toThrow(/unknown step zz/);
    expect(log).toEqual([]);
  });

  it('handles an empty plan', async () => {
    const r = await executeSteps([]);
    expect(r).toEqual({ applied: [], failed: [], skipped: [], notStarted: [], interrupted: false });
  });
  it('runs first the steps that the heaviest remaining chain waits for (critical path first)', async () => {
    const log: string[] = [];
    // Caller order puts 50 unrelated writes first; the deploy (weight 100) waits for cfg-a only.
    const writes = Array.from({ length: 50 }, (_, i) => instant(`w${i}`, [], log));
    const steps: Step[] = [...writes, instant('cfg-a', [], log), { ...instant('deploy-a', ['cfg-a'], log), weight: 100 }];
    await executeSteps(steps, { parallelism: 1 });
    expect(log.slice(0, 2)).toEqual(['cfg-a', 'deploy-a']);
    expect(log.slice(2)).toEqual(writes.map((w) => w.id));
  });

  it('orders equally heavy chains by the caller order, and longer chains of writes first', async () => {
    const log: string[] = [];
    const steps = [instant('a', [], log), instant('b', [], log), instant('c', ['b'], log), instant('d', [], log)];
    await executeSteps(steps, { parallelism: 1 });
    // b heads a chain of two; a and d (one each) keep their order.
    expect(log).toEqual(['b', 'a', 'c', 'd']);
  });

  it('does not count background steps (a deployment being waited on) against the parallelism', async () => {
    const deploy = controlled('deploy');
    const write = controlled('write');
    const p = executeSteps([{ ...deploy.step, background: true }, write.step], { parallelism: 1 });
    await tick();
    expect(deploy.isStarted()).toBe(true);
    expect(write.isStarted()).toBe(true);
    write.resolve();
    deploy.resolve();
    const r = await p;
    expect(r.applied.sort()).toEqual(['deploy', 'write']);
  });

  it('still bounds the foreground steps while background steps run', async () => {
    const bg = controlled('bg');
    const probe = concurrencyProbe(10);
    const steps: Step[] = [{ ...bg.step, background: true }, ...probe.steps];
    const p = executeSteps(steps, { parallelism: 2 });
    for (let i = 0; i < 20; i++) await tick();
    expect(probe.peak()).toBe(2);
    expect(bg.isStarted()).toBe(true);
    bg.resolve();
    expect((await p).applied).toHaveLength(11);
  });
  it('among equally heavy chains, runs first the step that more steps wait for', async () => {
    const log: string[] = [];
    // svc and stage both head a chain of 2 before the deploy; three moves wait for the stage.
    const steps: Step[] = [
      instant('svc', [], log),
      instant('stage', [], log),
      instant('move-1', ['stage'], log),
      instant('move-2', ['stage'], log),
      instant('move-3', ['stage', 'svc'], log),
      { ...instant('deploy', ['move-1', 'move-2', 'move-3'], log), weight: 100 },
    ];
    await executeSteps(steps, { parallelism: 1 });
    expect(log[0]).toBe('stage');
  });
  it('starts nothing more once halted, without calling the run interrupted', async () => {
    const log: string[] = [];
    let halt = false;
    const steps: Step[] = [
      { id: 'a', dependsOn: [], run: async () => { log.push('a'); halt = true; throw new Error('401'); } },
      instant('b', [], log),
      instant('c', [], log),
    ];
    const r = await executeSteps(steps, { parallelism: 1, halted: () => halt });
    expect(log).toEqual(['a']);
    expect(r.failed.map((f) => f.id)).toEqual(['a']);
    expect(r.notStarted).toEqual(['b', 'c']);
    expect(r.interrupted).toBe(false);
  });
});
