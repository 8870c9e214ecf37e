/**
 * An `ignore_changes` path that is a string prefix of another names only itself:
 * `values_override.set` ignores the `set` overrides of a helm service and leaves `set_string` owned,
 * and the other way round. Both were changed in the console; the plan restores exactly the owned
 * one and reports the ignored one, end to end against the emulator (a planted prefix match,
 * `startsWith` instead of path equality, went unnoticed by the suite).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, startHarness, type Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const manifest = (ignore: string) => `version: 1
projects:
  - name: charts
    environments:
      - name: dev
        cluster: staging-cluster
        services:
          - type: helm
            name: cache
            source:
              helm_repository:
                repository: bitnami
                chart_name: redis
                chart_version: "19.0.0"
            values_override:
              set:
                replica.count: "2"
              set_string:
                image.tag: "7.2"
            ignore_changes: [${ignore}]
`;

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(h.emu.url + path, {
    method,
    headers: { authorization: `Token ${h.emu.tokens.ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed: any = r.status === 204 ? {} : await r.json();
  if (!r.ok) throw new Error(`${method} ${path} -> ${r.status}: ${parsed.message}`);
  return parsed;
}

/** A console edit of both override lists of the helm service, as a full replacement PUT. */
async function editBothOverrides(): Promise<void> {
  const svc = Object.values(h.emu.state.services).find((s) => s.name === 'cache')!;
  const current = await api('GET', `/helm/${svc.id}`);
  const body: Record<string, unknown> = { ...current };
  for (const k of ['id', 'created_at', 'updated_at', 'environment', 'service_type', 'maximum_cpu', 'maximum_memory']) delete body[k];
  body.source = { helm_repository: { repository: current.source.repository.repository.id, chart_name: 'redis', chart_version: '19.0.0' } };
  body.values_override = { ...current.values_override, set: [['replica.count', '5']], set_string: [['image.tag', '9.9']] };
  await api('PUT', `/helm/${svc.id}`, body);
}

type Change = { address: string; change: { actions: string[]; before: any; after: any } };

describe('ignore_changes paths that are string prefixes of each other', () => {
  for (const [ignored, owned, ownedValue] of [
    ['values_override.set', 'set_string', [['image.tag', '7.2']]],
    ['values_override.set_string', 'set', [['replica.count', '2']]],
  ] as const) {
    it(`ignoring ${ignored} leaves values_override.${owned} owned`, async () => {
      h = await startHarness();
      h.write({ 'm/main.yaml': manifest(ignored) });
      const applied = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
      expect(applied.code, applied.stderr).toBe(0);
      await editBothOverrides();

      const p = await h.run(['plan', 'm', '--json']);
      expect(p.code, p.stderr).toBe(0);
      const plan = JSON.parse(p.stdout);
      const changes = (plan.resource_changes as Change[]).filter((c) => c.change.actions.includes('update'));
      expect(changes.map((c) => c.address)).toEqual(['project.charts/environment.dev/helm.cache']);
      const { before, after } = changes[0]!.change;
      // The owned list is planned back to the manifest's value; the ignored one keeps the console's.
      expect(after.values_override[owned]).toEqual(ownedValue);
      const ignoredKey = ignored.slice('values_override.'.length);
      expect(after.values_override[ignoredKey]).toEqual(before.values_override[ignoredKey]);

      const a = await h.run(['apply', 'm', '--auto-approve', ...FAST]);
      expect(a.code, a.stderr).toBe(0);
      const svc = Object.values(h.emu.state.services).find((s) => s.name === 'cache')!;
      const live = await api('GET', `/helm/${svc.id}`);
      expect(live.values_override[owned]).toEqual(ownedValue);
      expect(live.values_override[ignoredKey]).toEqual(ignoredKey === 'set' ? [['replica.count', '5']] : [['image.tag', '9.9']]);
    });
  }
});
