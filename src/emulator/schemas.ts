/**
 * The API's JSON Schemas, one source of truth: the files in `schemas/api/*.json` validate requests
 * (fastify + ajv), shape responses (projector.ts drops any field a schema does not list, so
 * a write-only secret cannot leak by accident) and produce `GET /openapi.json` (@fastify/swagger).
 *
 * Each file is `{"definitions": {"Name": <schema>}}`; names are global across files and refer to
 * each other with `{"$ref": "#/definitions/Name"}`. Schemas use OpenAPI 3.0 keywords only
 * (`nullable: true`, never `type: [..., "null"]`), so the same text is valid for ajv and OpenAPI.
 * `schema(name)` returns a fully inlined deep copy, which both consumers accept without a resolver.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export type JsonSchema = Record<string, unknown>;

export const SCHEMA_DIR = fileURLToPath(new URL('../../schemas/api/', import.meta.url));

let registry: Map<string, JsonSchema> | undefined;

export function loadSchemaRegistry(dir: string = SCHEMA_DIR): Map<string, JsonSchema> {
  const out = new Map<string, JsonSchema>();
  const origin = new Map<string, string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    let doc: { definitions?: Record<string, JsonSchema> };
    try {
      doc = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    } catch (err) {
      throw new Error(`schemas/api/${file} is not valid JSON: ${(err as Error).message}`);
    }
    for (const [name, s] of Object.entries(doc.definitions ?? {})) {
      if (out.has(name)) throw new Error(`schema '${name}' is defined in both ${origin.get(name)} and ${file}`);
      out.set(name, s);
      origin.set(name, file);
    }
  }
  return out;
}

function reg(): Map<string, JsonSchema> {
  registry ??= loadSchemaRegistry();
  return registry;
}

/** Every schema name of schemas/api. */
export function schemaNames(): string[] {
  return [...reg().keys()];
}

/** The named schema, every `$ref` inlined. */
export function schema(name: string): JsonSchema {
  return inline({ $ref: `#/definitions/${name}` }, []) as JsonSchema;
}

/** `{results: [Name], pagination?}`: the list shape of seed 4.1. */
export function listOf(name: string): JsonSchema {
  return {
    type: 'object',
    required: ['results'],
    properties: { results: { type: 'array', items: schema(name) }, pagination: schema('Pagination') },
  };
}

function inline(node: unknown, stack: string[]): unknown {
  if (Array.isArray(node)) return node.map((n) => inline(n, stack));
  if (!node || typeof node !== 'object') return node;
  const obj = node as Record<string, unknown>;
  if (typeof obj.$ref === 'string') {
    const m = /^#\/definitions\/(.+)$/.exec(obj.$ref);
    if (!m) throw new Error(`unsupported $ref '${obj.$ref}' (use #/definitions/Name)`);
    const name = m[1];
    const target = reg().get(name);
    if (!target) throw new Error(`schema '${name}' is not defined in schemas/api`);
    if (stack.includes(name)) throw new Error(`schema '${name}' refers to itself: ${[...stack, name].join(' -> ')}`);
    const { $ref: _ref, ...rest } = obj;
    const resolved = inline(target, [...stack, name]) as Record<string, unknown>;
    return Object.keys(rest).length ? { ...resolved, ...(inline(rest, stack) as object) } : resolved;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) out[k] = inline(v, stack);
  return out;
}
