/**
 * The emulator of a benchmark, in its own process (so that its CPU is not charged to the client
 * being measured). Driven over IPC by emulator.mjs:
 *
 *   {cmd: 'populate', spec, fingerprintKey, deploy}  build an organization (see populate.mjs)
 *   {cmd: 'set', options}                            change emulator options (latencyMs, deployDurationMs)
 *   {cmd: 'stats', reset}                            requests served since the last reset
 *   {cmd: 'log', on}                                 record every request (time, duration, route, status, raw URL)
 *   {cmd: 'exit'}
 *
 * Requests are counted at the server socket ('request' events of the node:http server), so the
 * count is what the API would bill, whatever the client claims. Route templates replace UUIDs by
 * `{id}`.
 */
import { dist } from './paths.mjs';
import { injector, populate } from './populate.mjs';
import { cloneProjects } from './clone.mjs';

const { startEmulator } = await dist('emulator/server.js');

const options = JSON.parse(process.argv[2] ?? '{}');
const logger = { info() {}, warn() {}, error: (m) => process.stderr.write(`emulator: ${m}\n`) };
/** The rate limiter is built once per app: populating happens without a limit, then the
 * emulator restarts from the populated state with the limit the benchmark asked for. */
const start = (limited, seed) =>
  startEmulator({
    latencyMs: 0,
    rateLimit: limited ? (options.rateLimit ?? 100_000_000) : 100_000_000,
    rateWindowS: limited ? (options.rateWindowS ?? 3600) : 3600,
    deployDurationMs: options.deployDurationMs ?? 3000,
    ...(seed ? { seed } : {}),
    logger,
  });
let emu = await start(options.rateLimit === undefined);
let limited = options.rateLimit === undefined;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
export function routeOf(method, url) {
  const p = url.split('?')[0].replace(UUID, '{id}');
  return `${method} ${p}`;
}

let stats = emptyStats();
let profiler = null;
let log = null;
function emptyStats() {
  return { total: 0, byRoute: {}, byStatus: {}, first: 0, last: 0 };
}

function count(req, res) {
  const t = Date.now();
  const route = routeOf(req.method, req.url);
  res.on('finish', () => {
    stats.total++;
    stats.byRoute[route] = (stats.byRoute[route] ?? 0) + 1;
    stats.byStatus[res.statusCode] = (stats.byStatus[res.statusCode] ?? 0) + 1;
    if (!stats.first) stats.first = t;
    stats.last = Date.now();
    if (log) log.push([t, Date.now() - t, route, res.statusCode, `${req.method} ${req.url}`]);
  });
}
emu.app.server.on('request', count);

/** Replaces the running emulator by one started from `state` (new port). */
async function restart(withLimit, state) {
  const latency = emu.ctx.options.latencyMs;
  await emu.close();
  emu = await start(withLimit, state);
  emu.ctx.options.latencyMs = latency;
  emu.app.server.on('request', count);
}

process.on('message', async (msg) => {
  const reply = (body) => process.send({ id: msg.id, ...body });
  try {
    switch (msg.cmd) {
      case 'populate': {
        // Projects after the first are copies of the first's records (clone.mjs) when `clone`.
        const [first, ...others] = msg.spec.projects;
        const cloning = msg.clone && others.length > 0;
        const r = await populate(emu, cloning ? { projects: [first] } : msg.spec, { fingerprintKey: msg.fingerprintKey, deploy: msg.deploy !== false });
        if (cloning) {
          const t0 = Date.now();
          await restart(limited, cloneProjects(JSON.parse(JSON.stringify(emu.state)), first.name, others));
          // Let the emulator re-sync the copies' BUILT_IN variables now rather than during the
          // first measured plan (it does so on the first listing of an environment's variables).
          const call = injector(emu.app, emu.tokens.ADMIN);
          for (const id of Object.keys(emu.state.environments)) await call('GET', `/variable?parent_id=${id}&scope=ENVIRONMENT`);
          r.clonedProjects = others.length;
          r.cloneMs = Date.now() - t0;
          r.totalMs += r.cloneMs;
        }
        reply({ ok: true, result: { ...r, url: emu.url, tokens: emu.tokens } });
        break;
      }
      case 'limit': {
        // Restart from the current state with the configured rate limit (same URL not kept).
        if (!limited) {
          await restart(true, JSON.parse(JSON.stringify(emu.state)));
          limited = true;
        }
        reply({ ok: true, result: { url: emu.url, tokens: emu.tokens } });
        break;
      }
      case 'set':
        Object.assign(emu.ctx.options, msg.options);
        reply({ ok: true });
        break;
      case 'stats':
        reply({ ok: true, result: stats });
        if (msg.reset) stats = emptyStats();
        break;
      case 'log':
        reply({ ok: true, result: log ?? [] });
        log = msg.on ? [] : null;
        break;
      case 'state-summary': {
        const s = emu.state;
        const statuses = Object.values(s.serviceStatuses);
        reply({
          ok: true,
          result: {
            projects: Object.keys(s.projects).length,
            environments: Object.keys(s.environments).length,
            services: Object.keys(s.services).length,
            variables: Object.keys(s.variables).length,
            stages: Object.keys(s.deploymentStages).length,
            deployed: statuses.filter((x) => x.state === 'DEPLOYED').length,
            operations: Object.keys(s.operations).length,
          },
        });
        break;
      }
      case 'profile': {
        // CPU profile of the emulator between {on: true} and {on: false, file} (diagnosis).
        const { Session } = await import('node:inspector/promises');
        if (msg.on) {
          profiler = new Session();
          profiler.connect();
          await profiler.post('Profiler.enable');
          await profiler.post('Profiler.start');
          reply({ ok: true });
        } else {
          const { profile } = await profiler.post('Profiler.stop');
          profiler.disconnect();
          profiler = null;
          (await import('node:fs')).writeFileSync(msg.file, JSON.stringify(profile));
          reply({ ok: true, result: msg.file });
        }
        break;
      }
      case 'exit':
        reply({ ok: true });
        await emu.close();
        process.exit(0);
        break;
      default:
        reply({ ok: false, error: `unknown command ${msg.cmd}` });
    }
  } catch (e) {
    reply({ ok: false, error: e instanceof Error ? e.message : String(e) });
  }
});

process.send({ ready: true, url: emu.url, organizationId: emu.organizationId, tokens: emu.tokens });
