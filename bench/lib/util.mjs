/** Small helpers of the benchmark: child processes, medians, formatting. */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/**
 * Runs `node args...` and resolves with its wall time, exit code, stdout, stderr and the last
 * stdout line parsed as JSON when it is JSON.
 */
export function runNode(args, { env = process.env, cwd, timeoutMs = 30 * 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const wallMs = performance.now() - t0;
      // bench/lib/cli.mjs reports its CPU time and peak memory on stderr (BENCH_REPORT_CPU).
      let usage;
      stderr = stderr.replace(/^##bench (.*)\n?/m, (_, j) => {
        try {
          usage = JSON.parse(j);
        } catch {}
        return '';
      });
      let json;
      const last = stdout.trim().split('\n').pop();
      try {
        json = last ? JSON.parse(last) : undefined;
      } catch {
        json = undefined;
      }
      resolve({ code, wallMs, stdout, stderr, json, cpuMs: usage?.cpu_ms, maxRssMb: usage?.max_rss_mb });
    });
  });
}

export function median(xs) {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

export const fmtS = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s` : 'n/a');
export const fmtN = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
export const fmtX = (r) => (Number.isFinite(r) ? `${r.toFixed(r < 10 ? 2 : 1)}×` : 'n/a');

export function log(msg) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}
