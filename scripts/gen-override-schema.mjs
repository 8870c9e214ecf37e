#!/usr/bin/env node
/**
 * Writes the partial ("override") definitions of schemas/manifest.schema.json from the full ones,
 * so that the two never disagree: `service_override` (what an environment's
 * `overrides.services.NAME` may say) and `partial_<definition>` for every object definition a
 * service refers to. A partial is the same schema without `required` (an override says only what
 * it changes), except the key a list of such items is merged by (variable `key`, port `name`,
 * storage `mount_point`): an override item without it could not be matched.
 *
 * Run `node scripts/gen-override-schema.mjs` after changing a service definition;
 * test/manifest/templates-schema.test.ts fails while the committed schema is not what this writes.
 * `--check` exits 1 instead of writing when the file is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SERVICE_KINDS = ['application', 'container', 'database', 'job', 'helm', 'terraform'];
/** Lists merged item by item, by this field (src/manifest/templates.ts MERGE_KEYS says the same). */
export const MERGE_KEYS = { variable: 'key', port: 'name', storage_volume: 'mount_point' };
const DESCRIPTIVE = new Set(['title', 'description', 'examples', 'default']);

/** The schema document with its generated definitions replaced by fresh ones. */
export function withOverrideDefinitions(schema) {
  const defs = { ...schema.definitions };
  for (const k of Object.keys(defs)) if (k === 'service_override' || k.startsWith('partial_')) delete defs[k];
  const partialNames = new Set();
  const partialize = (node) => {
    if (Array.isArray(node)) return node.map(partialize);
    if (node === null || typeof node !== 'object') return node;
    const out = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === 'required') continue;
      if (k === '$ref' && typeof v === 'string') {
        const name = v.replace('#/definitions/', '');
        const target = defs[name];
        if (target && hasRequired(target)) {
          partialNames.add(name);
          out.$ref = `#/definitions/partial_${name}`;
          continue;
        }
      }
      out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, partialize(s)])) : partialize(v);
    }
    return out;
  };
  /** Whether a partial copy is needed: the definition, or one it refers to, requires a field. */
  const hasRequired = (node, seen = new Set()) => {
    if (Array.isArray(node)) return node.some((n) => hasRequired(n, seen));
    if (node === null || typeof node !== 'object') return false;
    if (Array.isArray(node.required) && node.required.length > 0) return true;
    if (typeof node.$ref === 'string') {
      const name = node.$ref.replace('#/definitions/', '');
      if (!seen.has(name) && defs[name]) {
        seen.add(name);
        if (hasRequired(defs[name], seen)) return true;
      }
    }
    return Object.entries(node).some(([k, v]) => k !== '$ref' && hasRequired(v, seen));
  };

  // The union of the kinds' properties (an override cannot change `type` or `name`). A property
  // two kinds define differently accepts either form; the instantiated service is checked against
  // its own kind's full schema after expansion, with the exact message.
  const properties = {};
  const variants = {};
  for (const kind of SERVICE_KINDS) {
    for (const [p, s] of Object.entries(defs[kind].properties)) {
      if (p === 'type' || p === 'name') continue;
      const partial = partialize(s);
      const shape = JSON.stringify(strip(partial));
      (variants[p] ??= new Map()).has(shape) || variants[p].set(shape, partial);
      properties[p] ??= partial;
    }
  }
  for (const [p, forms] of Object.entries(variants)) {
    if (forms.size === 1) continue;
    const first = properties[p];
    properties[p] = { title: first.title, description: `${first.description} (The form depends on the service's type.)`, anyOf: [...forms.values()] };
  }

  const generated = {};
  // Partial copies of the definitions reached, to a fixed point (a partial may reach another).
  for (let added = true; added; ) {
    added = false;
    for (const name of [...partialNames]) {
      if (generated[`partial_${name}`]) continue;
      const p = partialize(defs[name]);
      const key = MERGE_KEYS[name];
      if (key) p.required = [key];
      p.title = `${defs[name].title} (override)`;
      p.description = `${defs[name].description} In an override: only the fields that change${key ? `; items are matched by \`${key}\`` : ''}.`;
      generated[`partial_${name}`] = p;
      added = true;
    }
  }
  generated.service_override = {
    title: 'Service override',
    description:
      "What this environment changes in a service of its template: any field of the service except `type` and `name`. Maps merge key by key; `variables` merge by `key`, `ports` by `name`, `storage` by `mount_point` (an item with a new key is added); any other list replaces the template's.",
    type: 'object',
    additionalProperties: false,
    examples: [{ cpu: 1000, max_running_instances: 4 }, { tag: '1.4.2' }, { variables: [{ key: 'LOG_LEVEL', value: 'warn' }] }],
    properties,
  };
  const ordered = {};
  for (const [k, v] of Object.entries(defs)) ordered[k] = v;
  for (const k of Object.keys(generated).sort()) ordered[k] = generated[k];
  return { ...schema, definitions: ordered };
}

/** A schema without its descriptive keywords: two forms are the same when this is. */
function strip(node) {
  if (Array.isArray(node)) return node.map(strip);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).filter(([k]) => !DESCRIPTIVE.has(k)).map(([k, v]) => [k, strip(v)]));
}

const file = fileURLToPath(new URL('../schemas/manifest.schema.json', import.meta.url));
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const before = readFileSync(file, 'utf8');
  const after = JSON.stringify(withOverrideDefinitions(JSON.parse(before)), null, 2) + '\n';
  if (process.argv.includes('--check')) {
    if (after !== before) {
      process.stderr.write('schemas/manifest.schema.json: the override definitions are out of date; run node scripts/gen-override-schema.mjs\n');
      process.exit(1);
    }
  } else writeFileSync(file, after);
}
