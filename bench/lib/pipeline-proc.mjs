/**
 * One driftless run in a fresh process: `plan` (runPlan), or `apply` (runPlan + applyPlan), timed
 * phase by phase. Used by run.mjs; prints one JSON line on stdout.
 *
 *   node pipeline-proc.mjs plan|apply DIR [parallelism]
 *
 * Configuration comes from the environment, as for the CLI (DRIFTLESS_API_URL, DRIFTLESS_API_TOKEN,
 * DRIFTLESS_FINGERPRINT_KEY). Rate-limit waits reported by the client are collected as events.
 */
import { performance } from 'node:perf_hooks';
import { dist } from './paths.mjs';

const [mode, dir, par] = process.argv.slice(2);
const parallelism = par ? Number(par) : undefined;
const t0 = performance.now();
const { runPlan } = await dist('cli/run-plan.js');
const tImported = performance.now();

const waits = [];
const retries = [];
const onApiEvent = (e) => {
  if (e.type === 'rate-limit-wait') {
    waits.push({ seconds: e.seconds, at_ms: Math.round(performance.now() - t0) });
    process.stderr.write(`waiting ${e.seconds} s for the API rate limit (until ${e.until})\n`);
  }
  if (e.type === 'retry') retries.push({ path: e.path, reason: e.reason });
};

const tPlan0 = performance.now();
const res = await runPlan([dir], { ...(parallelism ? { parallelism } : {}) }, { env: process.env, cwd: process.cwd(), onApiEvent });
const tPlan1 = performance.now();
const errors = res.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code}: ${d.summary ?? d.message ?? ''}`);
const out = {
  mode,
  import_ms: Math.round(tImported - t0),
  plan_ms: Math.round(tPlan1 - tPlan0),
  plan_requests: res.requestCount,
  summary: res.plan?.summary,
  errors,
  waits,
  retries: retries.length,
};
if (res.plan) {
  const changed = res.plan.changes.filter((c) => c.status === 'planned' && (c.actions[0] !== 'no-op' || c.deploy));
  out.changes = changed.slice(0, 10).map((c) => ({ address: c.address, actions: c.actions, fields: c.fields.map((f) => f.field), deploy: c.deploy?.reasons }));
  out.changed_count = changed.length;
}

if (mode === 'apply' && res.plan && errors.length === 0) {
  const { applyPlan } = await dist('apply/apply.js');
  const events = [];
  let firstDeployAt;
  let lastDeployDoneAt;
  const tA0 = performance.now();
  const result = await applyPlan(
    res.plan,
    {
      api: res.session.port,
      live: res.live,
      desired: res.graph,
      fingerprintKey: res.fingerprintKey,
      onEvent: (e) => {
        events.push(e.type);
        if (e.type === 'apply_progress' && e.action === 'deploy') {
          firstDeployAt ??= performance.now();
          lastDeployDoneAt = performance.now();
        }
      },
    },
    { ...(parallelism ? { parallelism } : {}) },
  );
  const tA1 = performance.now();
  out.apply_ms = Math.round(tA1 - tA0);
  out.apply_status = result.status;
  out.apply_summary = result.summary;
  out.apply_requests = result.requestCount;
  out.apply_failures = result.steps.filter((s) => s.status === 'failed').slice(0, 5).map((s) => `${s.address}: ${s.error ?? ''}`);
  out.deploy_first_progress_ms = firstDeployAt ? Math.round(firstDeployAt - tA0) : null;
  out.deploy_last_progress_ms = lastDeployDoneAt ? Math.round(lastDeployDoneAt - tA0) : null;
}
await res.session?.close();
out.total_ms = Math.round(performance.now() - t0);
process.stdout.write(JSON.stringify(out) + '\n');
