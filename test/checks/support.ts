/**
 * Helpers of the check tests: manifests loaded from real YAML (so that diagnostics carry real
 * file:line:col ranges), an in-memory ApiPort that records every request, and live states.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadManifest } from '../../src/manifest/load.js';
import type { Manifest } from '../../src/manifest/types.js';
import type { ApiPort } from '../../src/live/api-port.js';
import type { LiveResource, LiveState } from '../../src/model/resource.js';
import { addressOf } from '../../src/model/resource.js';

export const ORG_ID = '00000000-0000-4000-8000-000000000001';

export async function loadYaml(yaml: string, env: Record<string, string> = {}): Promise<Manifest> {
  const dir = mkdtempSync(join(tmpdir(), 'driftless-checks-'));
  try {
    writeFileSync(join(dir, 'main.yaml'), yaml);
    const r = await loadManifest(['main.yaml'], { env, cwd: dir });
    const errors = r.diagnostics.filter((d) => d.severity === 'error');
    if (!r.manifest || errors.length > 0) throw new Error(`test manifest does not load: ${errors.map((d) => d.summary).join('; ')}`);
    return r.manifest;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The 1-based line of the first line of `yaml` that contains `needle`. */
export function lineOf(yaml: string, needle: string): number {
  const i = yaml.split('\n').findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`no line with ${needle}`);
  return i + 1;
}

export interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
}

export type Handler = (call: Call) => unknown;

/** An ApiPort answering from `handler` (a thrown error is the API's failure). */
export class FakePort implements ApiPort {
  readonly calls: Call[] = [];
  constructor(private readonly handler: Handler) {}
  get requestCount(): number {
    return this.calls.length;
  }
  private async answer<T>(call: Call): Promise<T> {
    this.calls.push(call);
    await new Promise((r) => setImmediate(r));
    return this.handler(call) as T;
  }
  get<T>(path: string): Promise<T> {
    return this.answer({ method: 'GET', path });
  }
  post<T>(path: string, body?: unknown): Promise<T> {
    return this.answer({ method: 'POST', path, body });
  }
  put<T>(path: string, body?: unknown): Promise<T> {
    return this.answer({ method: 'PUT', path, body });
  }
  async delete(path: string): Promise<void> {
    await this.answer({ method: 'DELETE', path });
  }
}

/** An API failure shaped like the client's (status, kind, message). */
export function apiError(status: number, message: string): Error {
  return Object.assign(new Error(message), { status, kind: status >= 500 ? 'server' : 'bad-request' });
}

export function cluster(name: string, cloud_provider: string, region: string): LiveResource {
  return {
    address: addressOf('cluster', name),
    kind: 'cluster',
    name,
    id: `id-${name}`,
    attrs: {},
    record: { id: `id-${name}`, name, cloud_provider, region },
    version: '1',
  };
}

export function liveDatabase(project: string, environment: string, name: string, instance_type: string): LiveResource {
  const parent = addressOf('environment', environment, addressOf('project', project));
  return {
    address: addressOf('database', name, parent),
    kind: 'database',
    name,
    parent,
    id: `id-${name}`,
    attrs: { instance_type },
    record: { id: `id-${name}`, name, instance_type, mode: 'MANAGED' },
    version: '1',
  };
}

export function liveState(...resources: LiveResource[]): LiveState {
  return { organizationId: ORG_ID, resources: new Map(resources.map((r) => [r.address, r])), requestCount: 0 };
}
