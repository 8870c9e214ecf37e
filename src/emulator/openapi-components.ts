/**
 * Routes carry fully inlined schemas (ajv and the serializer need no resolver), so the raw
 * OpenAPI document repeats every record schema wherever it is used. This pass gives each named
 * schema of schemas/api one entry in `components.schemas` and replaces its inlined copies by a
 * `$ref`, which makes the document a fraction of the size and readable in any OpenAPI viewer.
 */
import { schema, schemaNames } from './schemas.js';

type Json = Record<string, any>;

export function extractComponents(doc: Json): Json {
  const bySignature = new Map<string, string>();
  const components: Record<string, Json> = {};
  for (const name of schemaNames()) {
    const s = schema(name);
    // Only records and unions: tiny fragments (Uuid, Name, Cpu) read better inline.
    if (!s.properties && !s.anyOf) continue;
    const sig = JSON.stringify(s);
    if (!bySignature.has(sig)) bySignature.set(sig, name);
  }
  const replace = (node: unknown, self?: string): unknown => {
    if (Array.isArray(node)) return node.map((n) => replace(n));
    if (!node || typeof node !== 'object') return node;
    const name = bySignature.get(JSON.stringify(node));
    if (name && name !== self) {
      if (!components[name]) components[name] = {}; // placeholder: filled below, guards recursion
      return { $ref: `#/components/schemas/${name}` };
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) out[k] = replace(v);
    return out;
  };
  const paths = replace(doc.paths) as Json;
  // Fill the components, themselves deduplicated against the other names; new names found while
  // filling are filled in turn.
  for (let pending = Object.keys(components).filter((n) => !Object.keys(components[n]).length); pending.length; pending = Object.keys(components).filter((n) => !Object.keys(components[n]).length)) {
    for (const name of pending) components[name] = replace(schema(name), name) as Json;
  }
  const sorted = Object.fromEntries(Object.keys(components).sort().map((k) => [k, components[k]]));
  return { ...doc, paths, components: { ...(doc.components ?? {}), schemas: { ...(doc.components?.schemas ?? {}), ...sorted } } };
}
