/**
 * Parent side of emulator-proc.mjs: starts an emulator in a child process and talks to it.
 *
 *   const emu = await spawnEmulator({ rateLimit, rateWindowS, deployDurationMs });
 *   (with rateLimit: the limit applies after `await emu.applyRateLimit()`, so populating is not limited)
 *   await emu.populate(spec, key); await emu.set({ latencyMs: 50 });
 *   const s = await emu.stats({ reset: true }); await emu.close();
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const PROC = path.join(path.dirname(fileURLToPath(import.meta.url)), 'emulator-proc.mjs');

export async function spawnEmulator(options = {}) {
  const child = fork(PROC, [JSON.stringify(options)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: process.env });
  const pending = new Map();
  let nextId = 1;
  const ready = new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`emulator process exited with code ${code} before it was ready`)));
    child.on('message', (msg) => {
      if (msg.ready) return resolve(msg);
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      if (msg.ok) p.resolve(msg.result);
      else p.reject(new Error(msg.error));
    });
  });
  const info = await ready;
  child.on('exit', () => {
    for (const p of pending.values()) p.reject(new Error('emulator process exited'));
    pending.clear();
  });
  const rpc = (cmd, body = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ id, cmd, ...body });
    });
  let closed = false;
  const handle = {
    url: info.url,
    organizationId: info.organizationId,
    tokens: info.tokens,
    pid: child.pid,
    /** opts.clone: projects after the first are copies of its records (clone.mjs); the URL may change. */
    async populate(spec, fingerprintKey, opts = {}) {
      const r = await rpc('populate', { spec, fingerprintKey, ...opts });
      handle.url = r.url;
      handle.tokens = r.tokens;
      return r;
    },
    set: (options) => rpc('set', { options }),
    /** With a rateLimit option: restart from the populated state with that limit (new URL). */
    async applyRateLimit() {
      const r = await rpc('limit');
      handle.url = r.url;
      handle.tokens = r.tokens;
      return r;
    },
    stats: (opts = {}) => rpc('stats', opts),
    /** Starts recording (on: true) or stops; returns the log recorded so far. */
    log: (on) => rpc('log', { on }),
    summary: () => rpc('state-summary'),
    /** CPU profile of the emulator: profile(true) starts, profile(false, file) writes it. */
    profile: (on, file) => rpc('profile', { on, file }),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.race([rpc('exit').catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
  return handle;
}
