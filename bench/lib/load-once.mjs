#!/usr/bin/env node
/**
 * One manifest load on a load-cache hit, in process, timed with process.cpuUsage (for
 * bench/manifest-warm.mjs): `node bench/lib/load-once.mjs FILE CACHE_DIR`, DRIFTLESS_DIST picks the
 * build. The environment is this process's own (process.env, as the CLI passes it). Prints one
 * JSON line: {"cpuMs":..., "diagnostics":..., "services":...}. Loads twice (same process): the
 * first is what a CLI run pays (cold code), the second the code when warm.
 */
import { dist } from './paths.mjs';

const [file, cacheDir] = process.argv.slice(2);
const { loadManifest } = await dist('manifest/load.js');
const { fileLoadCache } = await dist('cli/manifest-load-cache.js');
const cache = fileLoadCache(cacheDir);
const once = async () => {
  const t0 = process.cpuUsage();
  const r = await loadManifest([file], { env: process.env, cwd: process.cwd(), cache });
  const u = process.cpuUsage(t0);
  const services = (r.manifest?.projects ?? []).reduce((n, p) => n + (p.environments ?? []).reduce((m, e) => m + (e.services ?? []).length, 0), 0);
  return { cpuMs: (u.user + u.system) / 1000, diagnostics: r.diagnostics.length, services };
};
const first = await once();
const second = await once();
process.stdout.write(`${JSON.stringify({ ...first, secondCpuMs: second.cpuMs })}\n`);
