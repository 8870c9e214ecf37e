/**
 * Manifests and probes shared by the end-to-end tests.
 */
import type { Harness } from './helpers.js';

export const SECRET = 'sk_live_E2E-SECRET-VALUE-do-not-print';

export interface AppOptions {
  cpu?: number;
  logLevel?: string;
  /** FEATURE_FLAG as a secret (an immutable change: replace). */
  flagSecret?: boolean;
  withWorker?: boolean;
  pruneServices?: boolean;
  withDatabase?: boolean;
  stages?: boolean;
  tag?: string;
}

/** One project, one environment, an application with variables and a secret, a container, optionally a worker and a database. */
export function appManifest(o: AppOptions = {}): string {
  const lines = [
    'version: 1',
    'projects:',
    '  - name: e2e',
    '    description: end-to-end test project',
    '    variables:',
    `      - key: LOG_LEVEL`,
    `        value: ${o.logLevel ?? 'info'}`,
    '    environments:',
    '      - name: dev',
    '        mode: STAGING',
    '        cluster: staging-cluster',
  ];
  if (o.pruneServices) lines.push('        prune:', '          services: true');
  if (o.stages) {
    lines.push(
      '        deployment_stages:',
      '          - name: first',
      `            services: [web${o.withDatabase ? ', db' : ''}]`,
      '          - name: second',
      '            services: [api]',
    );
  }
  lines.push(
    '        services:',
    '          - type: application',
    '            name: api',
    '            git_repository:',
    '              url: https://github.com/driftless-examples/api.git',
    '              branch: main',
    '            dockerfile_path: Dockerfile',
    `            cpu: ${o.cpu ?? 250}`,
    '            memory: 256',
    '            ports:',
    '              - internal_port: 8080',
    '                publicly_accessible: true',
    '            variables:',
    '              - key: API_KEY',
    '                value: ${env:E2E_API_KEY}',
    '                secret: true',
    '              - key: FEATURE_FLAG',
    '                value: "on"',
    ...(o.flagSecret ? ['                secret: true'] : []),
    '          - type: container',
    '            name: web',
    '            registry: docker-hub',
    '            image_name: library/nginx',
    `            tag: "${o.tag ?? '1.27'}"`,
    '            cpu: 250',
    '            memory: 256',
  );
  if (o.withWorker) {
    lines.push(
      '          - type: container',
      '            name: worker',
      '            registry: docker-hub',
      '            image_name: library/busybox',
      '            tag: "1.36"',
    );
  }
  if (o.withDatabase) {
    lines.push(
      '          - type: database',
      '            name: db',
      '            database_type: POSTGRESQL',
      '            version: "16"',
      '            mode: CONTAINER',
      '            storage: 10',
    );
  }
  return lines.join('\n') + '\n';
}

export const SECRET_ENV = { E2E_API_KEY: SECRET };

/** Requests the emulator has counted for the harness's token so far (from X-RateLimit-Remaining). */
export async function remainingRequests(h: Harness): Promise<number> {
  const res = await fetch(`${h.emu.url}/organization`, { headers: { Authorization: `Token ${h.env.DRIFTLESS_API_TOKEN}` } });
  await res.arrayBuffer();
  return Number(res.headers.get('x-ratelimit-remaining'));
}

/** Services of the emulator's state by name (the records the API holds). */
export function servicesByName(h: Harness): Map<string, Record<string, any>> {
  return new Map(Object.values(h.emu.state.services).map((s) => [String(s.name), s as Record<string, any>]));
}

export function variablesByKey(h: Harness): Map<string, Record<string, any>> {
  return new Map(Object.values(h.emu.state.variables).map((v) => [String(v.key), v as Record<string, any>]));
}
