/**
 * Shared by the safety tests: a small project on the emulator, and what the emulator holds,
 * read straight from its state (never through driftless), to compare with what driftless says.
 */
import type { RunningEmulator } from '../../src/emulator/server.js';

/**
 * Project shop, environment preview on CLUSTER: an environment variable, a deployed application
 * in a stage, and (optionally) extra services lines appended under `services:`.
 */
export function previewManifest(cluster: string, opts: { cpu?: number; extraServices?: string; envExtra?: string } = {}): string {
  return `version: 1
projects:
  - name: shop
    environments:
      - name: preview
        mode: DEVELOPMENT
        cluster: ${cluster}
${opts.envExtra ?? ''}        variables:
          - key: GREETING
            value: hello
        deployment_stages:
          - name: apps
            services: [api]
        services:
          - type: application
            name: api
            git_repository: { url: https://github.com/acme/api.git }
            dockerfile_path: Dockerfile
            cpu: ${opts.cpu ?? 500}
${opts.extraServices ?? ''}`;
}

/**
 * Every object a manifest can own, as `kind:id`: environments, services, deployment stages (the
 * platform's DEFAULT stage left out) and variables (the platform's built-in ones left out).
 */
export function ownedObjects(emu: RunningEmulator): Set<string> {
  const s = emu.state;
  const out = new Set<string>();
  for (const id of Object.keys(s.environments)) out.add(`environment:${id}`);
  for (const id of Object.keys(s.services)) out.add(`service:${id}`);
  for (const [id, st] of Object.entries(s.deploymentStages)) if (st.name !== 'DEFAULT') out.add(`stage:${id}`);
  for (const [id, v] of Object.entries(s.variables)) if (v.variable_type !== 'BUILT_IN' && v.scope !== 'BUILT_IN') out.add(`variable:${id}`);
  return out;
}

const DELETING = new Set(['DELETE_QUEUED', 'DELETING']);

/**
 * ownedObjects once the emulator's asynchronous deletions (DELETE_QUEUED -> DELETING -> gone,
 * which apply does not wait for) have ended and nothing changed for a few polls.
 */
export async function settledObjects(emu: RunningEmulator, timeoutMs = 10_000): Promise<Set<string>> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  let stable = 0;
  for (;;) {
    const now = ownedObjects(emu);
    const key = [...now].sort().join();
    const busy = Object.values(emu.state.serviceStatuses).some((st) => DELETING.has(String(st.state)));
    stable = key === last && !busy ? stable + 1 : 0;
    last = key;
    if (stable >= 3 || Date.now() > deadline) return now;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The objects of `before` that are gone from `after`. */
export function disappeared(before: Set<string>, after: Set<string>): string[] {
  return [...before].filter((x) => !after.has(x)).sort();
}

/** `Resources: 1 added, 0 changed, 4 destroyed; 1 deployed.` -> 4 */
export function destroyedCount(stdout: string): number {
  const m = /(\d+) destroyed;/.exec(stdout);
  if (!m) throw new Error(`no apply summary in:\n${stdout}`);
  return Number(m[1]);
}
