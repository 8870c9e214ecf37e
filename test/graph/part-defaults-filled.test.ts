/**
 * The defaults the graph fills in for the parts of a service a manifest leaves out (a probe's
 * timings, an HTTP probe's path and scheme, a volume's type) are the ones the manifest schema
 * documents (the editor's hover), read from the schema itself: the graph takes them from the one
 * table of part defaults (src/export/part-defaults.ts) instead of a copy of its own.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normalizeProbe, normalizeStorage } from '../../src/graph/attrs.js';

const schema = JSON.parse(readFileSync(new URL('../../schemas/manifest.schema.json', import.meta.url), 'utf8'));
const defaultsOf = (def: string): Record<string, unknown> =>
  Object.fromEntries(Object.entries<any>(schema.definitions[def].properties).filter(([, v]) => v.default !== undefined).map(([k, v]) => [k, v.default]));

describe('part defaults the graph fills in', () => {
  it("a probe's timings left out are the schema's defaults, field by field", () => {
    const documented = defaultsOf('probe');
    expect(Object.keys(documented).sort()).toEqual(['failure_threshold', 'initial_delay_seconds', 'period_seconds', 'success_threshold', 'timeout_seconds']);
    const probe = normalizeProbe({ type: { tcp: { port: 80 } } })!;
    for (const [field, value] of Object.entries(documented)) expect(probe[field], field).toEqual(value);
  });

  it("an HTTP probe's path and scheme left out are the schema's defaults", () => {
    const http = schema.definitions.probe.properties.type.properties.http.properties;
    const probe = normalizeProbe({ type: { http: { port: 80 } } })!;
    expect((probe.type as any).http).toMatchObject({ path: http.path.default, scheme: http.scheme.default });
  });

  it("a volume's type left out is the schema's default", () => {
    expect(normalizeStorage([{ size: 10, mount_point: '/data' }])[0]!.type).toBe(defaultsOf('storage_volume').type);
  });
});
