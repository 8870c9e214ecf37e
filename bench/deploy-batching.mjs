#!/usr/bin/env node
/**
 * Experiment behind the "fresh apply" analysis: how long does deploying a 100-service environment
 * with 3 stages take with driftless's own deployStage() (same polling), when it sends
 *   (a) one batch per stage, waiting for each stage before the next (what apply does), or
 *   (b) one batch for the whole environment, the platform running the stages in order?
 * Same emulator, same latency, same deploy duration; services are created (not deployed) by
 * populate.mjs first. Prints one JSON line.
 *
 *   node bench/deploy-batching.mjs [--size 1x1x100] [--deploy-ms 5000] [--latency 50]
 */
import { performance } from 'node:perf_hooks';
import { spawnEmulator } from './lib/emulator.mjs';
import { orgSpec, parseSize, STAGES } from './lib/spec.mjs';
import { dist } from './lib/paths.mjs';

const argv = process.argv.slice(2);
const opt = (n, d) => {
  const i = argv.indexOf(`--${n}`);
  return i >= 0 ? argv[i + 1] : d;
};
const size = parseSize(opt('size', '1x1x100'));
const deployMs = Number(opt('deploy-ms', 5000));
const latency = Number(opt('latency', 50));

const { deployStage, DEFAULT_POLL_INTERVAL_MS, DEFAULT_MAX_POLL_INTERVAL_MS } = await dist('apply/deploy.js');
const { createApiClient } = await dist('api/index.js');
const { portFromClient } = await dist('live/api-port.js');

const emu = await spawnEmulator({ deployDurationMs: deployMs });
try {
  await emu.populate(orgSpec(size), 'k', { deploy: false });
  await emu.set({ latencyMs: latency });
  const client = createApiClient({ baseUrl: emu.url, token: emu.tokens.ADMIN, parallelism: 8 });
  const api = portFromClient(client);
  const results = (r) => (Array.isArray(r) ? r : r.results);
  const org = await api.get('/organization');
  const orgId = (results(org)?.[0] ?? org).id;
  const project = results(await api.get(`/organization/${orgId}/project`))[0];
  const env = results(await api.get(`/project/${project.id}/environment`))[0];
  const services = results(await api.get(`/environment/${env.id}/services`));
  const stages = results(await api.get(`/environment/${env.id}/deploymentStage`));
  const target = (s) => ({ address: s.name, id: s.id, kind: String(s.service_type).toLowerCase() });
  const stageOf = new Map();
  for (const st of stages) for (const m of st.services) stageOf.set(m.service_id, st.name);
  const timing = { now: () => performance.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };
  const run = async (batches) => {
    const before = client.stats().total;
    const t0 = performance.now();
    for (const b of batches) {
      await deployStage(
        { environmentId: env.id, environmentAddress: env.name, stageName: 'bench', services: b.map(target) },
        { api, timing, onEvent: () => {} },
        { deadline: t0 + 600_000, startedAt: t0, pollIntervalMs: DEFAULT_POLL_INTERVAL_MS, maxPollIntervalMs: DEFAULT_MAX_POLL_INTERVAL_MS, logLines: 0 },
      );
    }
    return { ms: Math.round(performance.now() - t0), requests: client.stats().total - before };
  };
  const perStage = STAGES.map((st) => services.filter((s) => stageOf.get(s.id) === st.name));
  const a = await run(perStage);
  const b = await run([services]);
  await client.close();
  const criticalPathMs = STAGES.length * deployMs;
  process.stdout.write(JSON.stringify({ services: services.length, stages: STAGES.length, deployMs, criticalPathMs, pollIntervalMs: DEFAULT_POLL_INTERVAL_MS, perStage: a, oneBatch: b }) + '\n');
} finally {
  await emu.close();
}
