/**
 * The verdict on every target of issue 6 and the markdown tables, from run.mjs's results.
 * Pure functions of the results object (tested in test/bench).
 */
import { median, fmtS, fmtN, fmtX } from './util.mjs';

const med = (runs, f) => median(runs.map(f));
const verdict = (ok) => (ok === undefined ? 'not measured' : ok ? '**met**' : '**NOT met**');

export function evaluateTargets(r) {
  const t = [];
  const sizes = r.sizes.filter((s) => s.plan.length > 0);

  // 1. Request formula and ratio at every size.
  for (const s of sizes) {
    const req = med(s.plan, (x) => x.requests);
    const noop = s.plan.every((x) => x.noop);
    t.push({
      id: `requests ${s.label}`,
      target: `${s.label}: no-op plan ≤ ${fmtN(s.budget)} requests (1/service + 3/env + 2/project + 8)`,
      measured: `${fmtN(req)} requests${noop ? '' : ' (plan was NOT a no-op)'}`,
      met: req <= s.budget && noop,
    });
    if (s.baseline.length > 0) {
      const base = med(s.baseline, (x) => x.requests);
      const ratio = base / req;
      t.push({ id: `ratio ${s.label}`, target: `${s.label}: ≥ 8× fewer requests than the per-resource pattern`, measured: `${fmtN(base)} / ${fmtN(req)} = ${fmtX(ratio)}`, met: ratio >= 8 });
    }
  }

  // 1b. Issue 13: a pull-request plan with --target of one environment.
  for (const s of r.sizes.filter((x) => (x.target ?? []).length > 0)) {
    const req = med(s.target, (x) => x.requests);
    const ok = s.target.every((x) => x.exit === 2 && x.partial && x.changes);
    t.push({
      id: `target ${s.label}`,
      target: `${s.label}: pull-request plan with \`--target\` of one environment ≤ ${fmtN(s.targetBudget)} requests (that environment's ${fmtN(s.targetBudget - 10)} reads + 10)`,
      measured: `${fmtN(req)} requests${ok ? '' : ' (the plan was NOT the partial plan of the one change)'}`,
      met: req <= s.targetBudget && ok,
    });
  }

  // 2. 1,000 services < 10 s; 5,000 ≤ 5.5 × 1,000.
  const by = (label) => r.sizes.find((s) => s.label === label && s.plan.length > 0);
  const s1k = by('1x10x100');
  const s5k = by('5x10x100');
  if (s1k) {
    const w = med(s1k.plan, (x) => x.wallMs);
    t.push({ id: 'plan 1,000 < 10 s', target: `1,000-service no-op plan < 10 s at ${r.options.latencyMs} ms latency`, measured: fmtS(w), met: w < 10_000 });
  }
  if (s1k && s5k) {
    const a = med(s1k.plan, (x) => x.wallMs);
    const b = med(s5k.plan, (x) => x.wallMs);
    t.push({ id: 'linear 5,000', target: '5,000-service plan ≤ 5.5 × the 1,000-service plan', measured: `${fmtS(b)} / ${fmtS(a)} = ${fmtX(b / a)}`, met: b / a <= 5.5 });
  }

  // 3. One-variable change.
  const changes = r.sizes.filter((s) => s.change.length > 0);
  if (changes.length > 0) {
    const rows = changes.map((s) => {
      const c = s.change;
      const ok = c.every((x) => x.exit === 0 && x.writes <= 2 && x.otherReads === 0 && x.deployRequests >= 1);
      // At most one poll per environment per interval: the deploying environment's polls are at
      // least driftless's minimum poll interval apart (10% tolerance for timer jitter).
      const interval = r.options.pollIntervalMs ?? 1000;
      const pollsOk = c.every((x) => x.minPollGapMs === null || x.minPollGapMs >= 0.9 * interval);
      return { s, ok: ok && pollsOk, polls: med(c, (x) => x.polls) };
    });
    // "Whatever the number of services": the polls of the largest size are no more than those of
    // the smallest plus timer jitter (one poll either way).
    const pollCounts = rows.map((x) => x.polls);
    const pollsFlat = Math.max(...pollCounts) - Math.min(...pollCounts) <= 1;
    t.push({
      id: 'one-variable change',
      target: 'plan reads + ≤ 2 writes + the deploy + polling (≤ 1 poll per environment per interval, whatever the size)',
      measured: rows
        .map(({ s }) => {
          const c = s.change;
          return `${s.label}: ${fmtN(med(c, (x) => x.planReads))} reads + ${fmtN(med(c, (x) => x.writes))} writes + ${fmtN(med(c, (x) => x.deployRequests))} deploy + ${fmtN(med(c, (x) => x.polls))} polls`;
        })
        .join('; '),
      met: rows.every((x) => x.ok) && pollsFlat,
    });
  }

  // 4. Fresh 100-service environment.
  const fresh = r.apply.find((a) => a.label === '1x1x100' && (a.deployMs ?? r.options.deployMs) === r.options.deployMs && a.runs.length > 0);
  if (fresh) {
    const ok = fresh.runs.every((x) => x.exit === 0 && x.deployed === fresh.counts.services);
    const wall = med(fresh.runs, (x) => x.wallMs);
    const dep = med(fresh.runs, (x) => x.deployPhaseMs);
    const cp = fresh.criticalPathMs;
    t.push({
      id: 'fresh apply (whole)',
      target: `apply of a fresh 100-service environment ≤ critical path + 10% (${fmtS(cp)} × 1.1 = ${fmtS(cp * 1.1)})`,
      measured: `${fmtS(wall)} whole apply (${fmtX(wall / cp)} the critical path)${ok ? '' : '; apply did not deploy everything'}`,
      met: ok && wall <= cp * 1.1,
    });
    t.push({
      id: 'fresh apply (deploy phase)',
      target: 'its deployment phase (first deploy request → last status) ≤ critical path + 10%',
      measured: `${fmtS(dep)} (${fmtX(dep / cp)})`,
      met: ok && dep <= cp * 1.1,
    });
  }

  // 5. Pure core at 50,000 resources.
  const core = r.core.filter((c) => c.runs.length > 0);
  const big = core[core.length - 1];
  if (big) {
    const cpu = med(big.runs, (x) => x.total_cpu_ms);
    const rss = med(big.runs, (x) => x.peak_rss_mb);
    const noop = big.runs.every((x) => x.changes === 0);
    t.push({
      id: 'pure core',
      target: `graph + plan of ${fmtN(big.runs[0].resources)} resources < 3 s CPU and < 500 MB`,
      measured: `${fmtN(cpu)} ms CPU, peak RSS ${fmtN(rss)} MB${noop ? '' : ' (plan was NOT a no-op)'}`,
      met: cpu < 3000 && rss < 500 && noop && big.runs[0].resources >= (r.options.quick ? 0 : 50_000),
    });
  }

  // 6. Rate limit.
  if (r.rateLimit?.runs?.length) {
    const rl = r.rateLimit;
    const z = rl.runs.every((x) => x.status429 === 0 && x.exit === 0);
    const shown = rl.runs.every((x) => x.waitLines.length > 0);
    t.push({
      id: 'rate limit',
      target: `plan needing ${rl.needed} requests at --rate-limit ${rl.limit} --rate-window ${rl.windowS}: zero 429s, the wait is shown`,
      measured: `${rl.runs.map((x) => `${x.status429} × 429, ${x.requests} requests, ${fmtS(x.wallMs)}`).join('; ')}; wait shown: ${shown ? 'yes' : 'no'}`,
      met: z && shown,
    });
  }
  // 7. Issue 2: the emulator sustains list calls at >= 2,000 requests per second.
  const rows = r.emulator?.json?.rows;
  if (rows?.length) {
    const list = rows.find((x) => /^GET /.test(x.request));
    const create = rows.find((x) => /^POST /.test(x.request));
    t.push({
      id: 'emulator throughput',
      target: 'issue 2: the emulator serves list calls at ≥ 2,000 requests/s (and reports a create call)',
      measured: `${list ? `${list.call}: ${fmtN(list.rps)} req/s` : 'no list row'}${create ? `; ${create.call}: ${fmtN(create.rps)} req/s` : ''}`,
      met: list ? list.rps >= 2000 : false,
    });
  }
  // 8. Issue 11: loading a manifest is linear and quick (a 2 MB file validates in under a second).
  if (r.manifestLoad) {
    const m = r.manifestLoad;
    t.push({
      id: 'manifest load',
      target: `issue 11: \`driftless validate\` of a ${(m.bytes / 1e6).toFixed(1)} MB manifest in < 1 s (median of ${m.runs})`,
      measured: `${fmtN(m.median_cli_wall_ms)} ms wall (${fmtN(m.median_cli_cpu_ms)} ms CPU, peak RSS ${fmtN(m.max_cli_rss_mb)} MB); the loader alone ${fmtN(m.median_load_wall_ms)} ms`,
      met: m.median_cli_wall_ms < 1000,
    });
  }
  return t;
}

function table(head, rows) {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

export function renderReport(r) {
  const m = r.machine;
  const out = [];
  out.push(`## Results of ${r.date.slice(0, 16).replace('T', ' ')} UTC`);
  out.push('');
  out.push(`- Command: \`npm run bench\` (\`${r.command}\`), ${r.options.runs} run(s) per figure unless stated, medians; total ${r.durationS ?? '?'} s.`);
  out.push(`- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, ${m.os}, Node ${m.node}; commit ${m.commit}.`);
  out.push(`- Load average at start / end: ${m.loadAtStart} / ${m.loadAtEnd ?? '?'} (the machine is shared: wall times are noisy, request counts are exact).`);
  out.push(`- Emulator in its own process with \`--latency ${r.options.latencyMs}\` on every request; deployments take ${fmtS(r.options.deployMs)} per service per stage; client parallelism ${r.options.parallelism ?? 8} for driftless and the baseline.`);
  out.push('');

  out.push('### Targets');
  out.push('');
  out.push(table(['target', 'measured', 'verdict'], r.targets.map((x) => [x.target, x.measured, verdict(x.met)])));
  out.push('');

  const sizes = r.sizes.filter((s) => s.plan.length > 0 || s.baseline.length > 0);
  if (sizes.length) {
    out.push('### No-op plan against the per-resource pattern');
    out.push('');
    out.push(
      table(
        ['size (P×E×S)', 'services', 'resources', 'driftless requests (budget)', 'provider pattern requests', 'ratio', 'driftless plan wall', 'provider reads wall', 'wall ratio'],
        sizes.map((s) => {
          const req = med(s.plan, (x) => x.requests);
          const base = med(s.baseline, (x) => x.requests);
          const w = med(s.plan, (x) => x.wallMs);
          const bw = med(s.baseline, (x) => x.wallMs);
          return [
            s.label,
            fmtN(s.counts.services),
            fmtN(s.counts.total),
            `${fmtN(req)} (${fmtN(s.budget)})`,
            `${fmtN(base)}${s.baseline.length === 1 && r.options.runs > 1 ? ' (1 run)' : ''}`,
            fmtX(base / req),
            fmtS(w),
            `${fmtS(bw)}${s.baseline.length === 1 && r.options.runs > 1 ? ' (1 run)' : ''}`,
            fmtX(bw / w),
          ];
        }),
      ),
    );
    out.push('');
    out.push('driftless plan wall = the whole `driftless plan` process (start-up, YAML, graph, reads, plan, output). Provider reads wall = only the replayed GETs (ids known in advance, as from a Terraform state; no start-up, no diff).');
    out.push('');
    const rows = sizes.filter((s) => s.plan.length).map((s) => {
      const p = s.plan;
      const pop = s.populate ? `${fmtS(s.populate.ms)}${s.populate.clonedProjects ? ` (${s.populate.clonedProjects} projects copied)` : ''}` : 'n/a';
      return [s.label, fmtS(med(p, (x) => x.wallMs)), fmtS(med(p, (x) => x.serverSpanMs)), fmtS(med(p, (x) => x.wallMs - x.serverSpanMs)), fmtS(med(p, (x) => x.cpuMs)), `${fmtN(med(p, (x) => x.maxRssMb))} MB`, pop];
    });
    out.push(table(['size', 'plan wall', 'of which API reads (first → last request, server side)', 'rest (start-up, YAML, graph, plan, output)', 'CPU time of the plan process', 'its peak RSS', 'set-up: populating the emulator (not part of any figure)'], rows));
    out.push('');
  }

  const targeted = r.sizes.filter((s) => (s.target ?? []).length > 0);
  if (targeted.length) {
    out.push('### Pull-request plan with `--target` of one environment (one variable changed in it)');
    out.push('');
    out.push(
      table(
        ['size', 'target', 'requests (budget)', 'whole no-op plan requests', 'wall', 'whole no-op plan wall'],
        targeted.map((s) => [
          s.label,
          `\`${s.target[0].address}\``,
          `${fmtN(med(s.target, (x) => x.requests))} (${fmtN(s.targetBudget)})`,
          s.plan.length ? fmtN(med(s.plan, (x) => x.requests)) : 'n/a',
          fmtS(med(s.target, (x) => x.wallMs)),
          s.plan.length ? fmtS(med(s.plan, (x) => x.wallMs)) : 'n/a',
        ]),
      ),
    );
    out.push('');
  }

  const changes = r.sizes.filter((s) => s.change.length > 0);
  if (changes.length) {
    out.push('### One-variable change (plan + apply, `driftless apply --auto-approve`)');
    out.push('');
    out.push(
      table(
        ['size', 'wall', 'requests', 'plan reads', 'writes', 'deploy requests', 'status polls', 'other reads', 'min gap between polls', 'deploy phase'],
        changes.map((s) => {
          const c = s.change;
          return [
            s.label + (c.length === 1 && r.options.runs > 1 ? ' (1 run)' : ''),
            fmtS(med(c, (x) => x.wallMs)),
            fmtN(med(c, (x) => x.requests)),
            fmtN(med(c, (x) => x.planReads)),
            fmtN(med(c, (x) => x.writes)),
            fmtN(med(c, (x) => x.deployRequests)),
            fmtN(med(c, (x) => x.polls)),
            fmtN(med(c, (x) => x.otherReads)),
            fmtS(med(c, (x) => x.minPollGapMs ?? NaN)),
            fmtS(med(c, (x) => x.deployPhaseMs ?? NaN)),
          ];
        }),
      ),
    );
    out.push('');
  }

  const applies = r.apply.filter((a) => a.runs.length > 0);
  if (applies.length) {
    out.push(`### Apply from an empty organization to deployed (${applies[0].stages} deployment stages, ${fmtS(r.options.deployMs)} per stage unless stated)`);
    out.push('');
    out.push(
      table(
        ['size', 'runs', 'services', 'wall', 'critical path', 'wall / critical path', 'requests', 'writes', 'deploy requests', 'status polls', 'config phase', 'deploy phase', 'deployed'],
        applies.map((a) => {
          const x = a.runs;
          const stageMs = a.deployMs ?? r.options.deployMs;
          return [
            stageMs === r.options.deployMs ? a.label : `${a.label}, ${fmtS(stageMs)} per stage`,
            String(x.length),
            fmtN(a.counts.services),
            fmtS(med(x, (y) => y.wallMs)),
            fmtS(a.criticalPathMs),
            fmtX(med(x, (y) => y.wallMs) / a.criticalPathMs),
            fmtN(med(x, (y) => y.requests)),
            fmtN(med(x, (y) => y.writes)),
            fmtN(med(x, (y) => y.deployRequests)),
            fmtN(med(x, (y) => y.polls)),
            fmtS(med(x, (y) => y.writePhaseMs ?? NaN)),
            fmtS(med(x, (y) => y.deployPhaseMs ?? NaN)),
            x.map((y) => `${y.deployed}/${a.counts.services}`).join(', '),
          ];
        }),
      ),
    );
    out.push('');
  }

  if (r.batching) {
    const b = r.batching;
    out.push(`### Experiment: the deploy phase alone, one batch per stage vs one batch (\`bench/deploy-batching.mjs\`, 1 run)`);
    out.push('');
    out.push(`${b.services} services created but not deployed, ${b.stages} stages of ${fmtS(b.deployMs)}, driftless's own \`deployStage()\` and its polling (minimum interval ${fmtS(b.pollIntervalMs)}).`);
    out.push('');
    out.push(
      table(
        ['deploy requests', 'wall', 'critical path', 'wall / critical path', 'requests (deploy + polls)'],
        [
          ['one batch per stage, each awaited (what apply does)', fmtS(b.perStage.ms), fmtS(b.criticalPathMs), fmtX(b.perStage.ms / b.criticalPathMs), fmtN(b.perStage.requests)],
          ['one batch for the environment (the platform orders the stages)', fmtS(b.oneBatch.ms), fmtS(b.criticalPathMs), fmtX(b.oneBatch.ms / b.criticalPathMs), fmtN(b.oneBatch.requests)],
        ],
      ),
    );
    out.push('');
  }

  const core = r.core.filter((c) => c.runs.length > 0);
  if (core.length) {
    out.push('### Pure core: graph + plan with in-memory live state (fresh process per run)');
    out.push('');
    out.push(
      table(
        ['case', 'resources', 'buildGraph CPU', 'live normalisation CPU', 'computePlan CPU', 'total CPU', 'wall', 'RSS before', 'peak RSS'],
        core.map((c) => [
          c.label,
          fmtN(c.runs[0].resources),
          `${fmtN(med(c.runs, (x) => x.graph_cpu_ms))} ms`,
          `${fmtN(med(c.runs, (x) => x.live_cpu_ms))} ms`,
          `${fmtN(med(c.runs, (x) => x.plan_cpu_ms))} ms`,
          `${fmtN(med(c.runs, (x) => x.total_cpu_ms))} ms`,
          `${fmtN(med(c.runs, (x) => x.wall_ms))} ms`,
          `${fmtN(med(c.runs, (x) => x.rss_before_mb))} MB`,
          `${fmtN(med(c.runs, (x) => x.peak_rss_mb))} MB`,
        ]),
      ),
    );
    out.push('');
    out.push('Live records were read once from the populated emulator with driftless\'s own reader and saved; the measured process loads them, builds the manifest object, then times the three steps. Peak RSS is the whole process (Node + inputs + work).');
    out.push('');
  }

  if (r.rateLimit?.runs?.length) {
    const rl = r.rateLimit;
    out.push(`### Rate limit: \`--rate-limit ${rl.limit} --rate-window ${rl.windowS}\`, size ${rl.size} (budget ${rl.needed} requests)`);
    out.push('');
    out.push(table(['run', 'wall', 'requests', '429 responses', 'exit', 'what the user saw (stderr)'], rl.runs.map((x, i) => [String(i + 1), fmtS(x.wallMs), fmtN(x.requests), String(x.status429), String(x.exit), x.waitLines.map((l) => `\`${l.replace(/\|/g, '\\|')}\``).join('<br>') || '(nothing)'])));
    out.push('');
  }

  if (r.emulator && !r.emulator.missing) {
    const e = r.emulator.json;
    out.push('### Emulator throughput (issue 2, `bench/emulator-throughput.mjs`)');
    out.push('');
    if (e?.rows) {
      out.push(`\`driftless serve\` in its own process, loopback, ${e.env.connections} keep-alive connections, ${e.env.seconds} s per row, no injected latency.`);
      out.push('');
      out.push(table(['call', 'request', 'requests', 'req/s', 'p50', 'p99', 'errors'], e.rows.map((x) => [x.call, `\`${x.request}\``, fmtN(x.requests), fmtN(x.rps), `${x.p50_ms.toFixed(1)} ms`, `${x.p99_ms.toFixed(1)} ms`, String(x.errors)])));
    } else {
      out.push(r.emulator.exit === 0 ? String(r.emulator.stdout ?? '').trim() : `failed: ${r.emulator.stderr ?? ''}`);
    }
    out.push('');
  }

  if (r.manifestLoad) {
    const m = r.manifestLoad;
    out.push('### Manifest loading (issue 11, `bench/manifest-load.mjs`)');
    out.push('');
    out.push(`One ${(m.bytes / 1e6).toFixed(2)} MB manifest file (1 project, ${m.environments} environments, ${fmtN(m.services)} services of the benchmark's shape, 99 applications merging an anchor with \`<<: *app\`), ${m.runs} runs; load average at the end ${m.load_average}.`);
    out.push('');
    out.push(table(['what', 'median wall', 'median CPU', 'peak RSS'], [
      ['`driftless validate FILE` (fresh process, start-up included)', `${fmtN(m.median_cli_wall_ms)} ms`, `${fmtN(m.median_cli_cpu_ms)} ms`, `${fmtN(m.max_cli_rss_mb)} MB`],
      ['`loadManifest` alone (warm, in process)', `${fmtN(m.median_load_wall_ms)} ms`, `${fmtN(m.median_load_cpu_ms)} ms`, ''],
    ]));
    out.push('');
  }

  if (r.errors.length) {
    out.push('### Errors during the run');
    out.push('');
    for (const e of r.errors) out.push(`- ${e.replace(/\n/g, ' ')}`);
    out.push('');
  }
  return out.join('\n');
}
