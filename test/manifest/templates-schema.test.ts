/**
 * The override parts of schemas/manifest.schema.json are derived from the full definitions by
 * scripts/gen-override-schema.mjs: they must be what it writes (so an override accepts every
 * field a service has, and nothing else), and an override must require nothing but the key its
 * items are merged by.
 */
import { describe, expect, it } from 'vitest';
import { manifestSchema } from '../../src/manifest/index.js';
import { MERGE_KEYS } from '../../src/manifest/templates.js';
// @ts-expect-error -- a build script in plain JavaScript, without type declarations
import { withOverrideDefinitions, MERGE_KEYS as SCRIPT_MERGE_KEYS } from '../../scripts/gen-override-schema.mjs';

type Defs = Record<string, { required?: string[]; properties?: Record<string, unknown> }>;

describe('override definitions of the manifest schema', () => {
  const schema = manifestSchema() as { definitions: Defs };

  it('are up to date with the service definitions (run node scripts/gen-override-schema.mjs)', () => {
    expect(withOverrideDefinitions(schema)).toEqual(schema);
  });

  it('offer every field of every service kind except type and name, and require none', () => {
    const override = schema.definitions.service_override!;
    expect(override.required).toBeUndefined();
    const kinds = ['application', 'container', 'database', 'job', 'helm', 'terraform'];
    const fields = new Set(kinds.flatMap((k) => Object.keys(schema.definitions[k]!.properties!)));
    fields.delete('type');
    fields.delete('name');
    expect(Object.keys(override.properties!).sort()).toEqual([...fields].sort());
  });

  it('require, in a partial list item, only the key it is merged by (the loader merges by the same keys)', () => {
    const partials = Object.entries(schema.definitions).filter(([k]) => k.startsWith('partial_'));
    expect(partials.length).toBeGreaterThan(0);
    const byDefinition = SCRIPT_MERGE_KEYS as Record<string, string>;
    for (const [name, def] of partials) {
      const base = name.slice('partial_'.length);
      expect(def.required, name).toEqual(byDefinition[base] ? [byDefinition[base]] : undefined);
    }
    // The loader's keys by field name and the script's by definition say the same.
    expect(Object.values(MERGE_KEYS).sort()).toEqual(Object.values(byDefinition).sort());
  });
});
