/**
 * The real API's OpenAPI document as vendored in test/fixtures/reference/ (written by
 * scripts/vendor-reference.mjs from the real API document kept beside the repository: no test reads outside
 * the repository), and the check of recorded exchanges against it, with the differences the seed
 * sanctions (reference-differences.ts) told apart from unexplained failures.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { findTemplate, resolveRefs } from './contract-check.js';

const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (a: Ajv) => Ajv;

export const REFERENCE_FIXTURE = fileURLToPath(new URL('../fixtures/reference/qovery-openapi.subset.json', import.meta.url));

/** The vendored subset of the reference document (paths, components, and the index of every operation). */
export function loadReference(): any {
  return JSON.parse(readFileSync(REFERENCE_FIXTURE, 'utf8'));
}

/** OpenAPI 3.0 `nullable` beside a `$ref`/`allOf` (no `type`) or an `enum`, as JSON Schema; property maps are left alone. */
export function typelessNullable(node: any, inProperties = false): any {
  if (Array.isArray(node)) return node.map((n) => typelessNullable(n));
  if (!node || typeof node !== 'object') return node;
  const out: any = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, typelessNullable(v, k === 'properties' && !inProperties)]));
  // `nullable: true` admits null even beside an enumeration that does not list it (OpenAPI 3.0).
  if (!inProperties && out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (!inProperties && 'nullable' in out && out.type === undefined) {
    const { nullable, ...rest } = out;
    return nullable ? { anyOf: [rest, { type: 'null' }] } : rest;
  }
  return out;
}

/**
 * A copy of `doc` where each `oneOf` with a discriminator mapping also says, branch by branch, the
 * discriminator values that name it (`branchValues`): the mapping names `$ref`s, which are inlined
 * before validation.
 */
function withBranchValues(node: any): any {
  if (Array.isArray(node)) return node.map(withBranchValues);
  if (!node || typeof node !== 'object') return node;
  const out: any = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withBranchValues(v)]));
  const mapping: Record<string, string> | undefined = node.discriminator?.mapping;
  if (Array.isArray(node.oneOf) && mapping) {
    out.branchValues = node.oneOf.map((b: any) => Object.entries(mapping).filter(([, ref]) => ref === b.$ref).map(([value]) => value));
  }
  return out;
}

/** One recorded exchange (test/support/proxy.ts with `bodies: true`). */
export interface RecordedExchange {
  method: string;
  path: string;
  query: string;
  status: number;
  requestBody?: string;
  responseBody?: string;
}

/** A difference from the reference that the seed defines deliberately (reference-differences.ts). */
export interface SanctionedDifference {
  id: string;
  /** "METHOD /template" of the reference (or of the emulator, for a path the reference lacks); `*` for any. */
  operations: string[];
  where: 'path' | 'query' | 'request' | 'status' | 'response';
  /** Matched against the problem's detail: the JSON path with indices as `*`, then ajv's message. */
  problem: RegExp;
  /** Where the seed (or the emulator's documented choice) says so. */
  seed: string;
  reason: string;
}

export interface ReferenceReport {
  checked: number;
  /** Problems no sanctioned difference explains, one line each. */
  unexplained: string[];
  /** Difference id -> how many problems it explained. */
  sanctioned: Map<string, number>;
  covered: Set<string>;
}

/** `/results/3/ports/0/external_port` -> `/results/*\/ports/*\/external_port`. */
const generic = (instancePath: string) => instancePath.replace(/\/\d+(?=\/|$)/g, '/*');

/** ajv's errors, one line each; a oneOf/anyOf failure keeps its branches' errors (allErrors). */
const details = (errors: ErrorObject[] | null | undefined) =>
  [...new Set((errors ?? []).map((e) => `${generic(e.instancePath) || '/'} ${e.message}${e.keyword === 'enum' ? ` ${JSON.stringify(e.params.allowedValues)}` : e.keyword === 'additionalProperties' ? ` ${e.params.additionalProperty}` : ''}`))];

/** `node`, or what its top-level `#/components/...` reference names. */
const deref = (node: any, doc: any): any =>
  typeof node?.$ref === 'string' ? node.$ref.slice(2).split('/').reduce((o: any, k: string) => o?.[k], doc) : node;

/** Query parameters the reference does not declare, or of a value its schema refuses. */
function queryProblems(doc: any, op: any, pathItem: any, query: string, validate: (s: unknown) => ValidateFunction): string[] {
  if (!query) return [];
  const declared = new Map<string, any>();
  for (const p of [...(pathItem.parameters ?? []), ...(op.parameters ?? [])].map((x) => deref(x, doc))) if (p?.in === 'query') declared.set(p.name, p.schema ?? {});
  const out: string[] = [];
  for (const [name, raw] of new URLSearchParams(query)) {
    const schema = declared.get(name);
    if (!schema) {
      out.push(`?${name} not declared`);
      continue;
    }
    const type = schema.type;
    const value = type === 'integer' || type === 'number' ? (raw.trim() === '' || Number.isNaN(Number(raw)) ? raw : Number(raw)) : type === 'boolean' ? (raw === 'true' ? true : raw === 'false' ? false : raw) : raw;
    const v = validate(schema);
    if (!v(value)) out.push(...details(v.errors).map((d) => `?${name}=${raw}${d.slice(1)}`));
  }
  return out;
}

/**
 * Every exchange against the reference: the path and method exist, the query parameters are
 * declared, the request body (JSON) is valid, the status is declared, the answer is valid.
 * `oneOf` is read as `anyOf`: the reference's alternatives overlap (a record matches several), which
 * conformance-review.test.ts checks branch by branch instead; a failed alternative reports its
 * closest branch's errors.
 */
export function checkAgainstReference(doc: any, log: readonly RecordedExchange[], differences: readonly SanctionedDifference[]): ReferenceReport {
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  // An alternative (oneOf, anyOf) that fails reports the errors of its closest branch only (the
  // fewest errors: for a service list, the branch of the record's own kind), not of every branch.
  ajv.addKeyword({
    keyword: 'closestOf',
    errors: true,
    compile(branches: unknown[], parent: any) {
      const compiled = branches.map((b) => ajv.compile(b as object));
      // The discriminator names the branch where the reference gives one (see withBranchValues).
      const property: string | undefined = parent.discriminator?.propertyName;
      const values: string[][] | undefined = parent.branchValues;
      const check = (data: unknown, cxt?: { instancePath: string }): boolean => {
        let best: ErrorObject[] | undefined;
        const named = property && values && data && typeof data === 'object' ? values.findIndex((vs) => vs.includes((data as any)[property])) : -1;
        for (const v of named >= 0 ? [compiled[named]!] : compiled) {
          if (v(data)) return true;
          if (!best || (v.errors?.length ?? 0) < best.length) best = v.errors ?? [];
        }
        (check as any).errors = (best ?? []).map((e) => ({ ...e, instancePath: (cxt?.instancePath ?? '') + e.instancePath }));
        return false;
      };
      return check;
    },
  });
  doc = withBranchValues(doc);
  const cache = new Map<unknown, ValidateFunction>();
  const validate = (s: unknown) => {
    let v = cache.get(s);
    if (!v) cache.set(s, (v = ajv.compile(JSON.parse(JSON.stringify(typelessNullable(resolveRefs(s, doc))).replace(/"(?:oneOf|anyOf)":/g, '"closestOf":')))));
    return v;
  };
  const vendored = Object.keys(doc.paths);
  const index: string[] = doc['x-operation-index'] ?? [];
  const indexTemplates = [...new Set(index.map((o) => o.split(' ')[1]!))];
  const report: ReferenceReport = { checked: 0, unexplained: [], sanctioned: new Map(), covered: new Set() };
  const judge = (operation: string, where: SanctionedDifference['where'], detail: string) => {
    const d = differences.find((x) => x.where === where && (x.operations.includes('*') || x.operations.includes(operation)) && x.problem.test(detail));
    if (d) report.sanctioned.set(d.id, (report.sanctioned.get(d.id) ?? 0) + 1);
    else report.unexplained.push(`${operation} ${where}: ${detail}`);
  };
  const parse = (text: string | undefined) => {
    if (text === undefined || text === '') return undefined;
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  };
  for (const ex of log) {
    report.checked++;
    const template = findTemplate(vendored, ex.path);
    const op = template ? doc.paths[template][ex.method.toLowerCase()] : undefined;
    if (!op) {
      const inReference = findTemplate(indexTemplates, ex.path);
      const name = `${ex.method} ${inReference ?? ex.path}`;
      if (inReference && index.includes(name)) report.unexplained.push(`${name}: in the reference but not vendored (add it to test/fixtures/reference/selection.json and run node scripts/vendor-reference.mjs)`);
      else judge(name, 'path', `not in the reference (status ${ex.status})`);
      continue;
    }
    const operation = `${ex.method} ${template}`;
    report.covered.add(operation);
    for (const q of queryProblems(doc, op, doc.paths[template!], ex.query, validate)) judge(operation, 'query', q);
    const reqSchema = op.requestBody?.content?.['application/json']?.schema;
    const reqBody = parse(ex.requestBody);
    if (reqBody !== undefined) {
      if (!reqSchema) judge(operation, 'request', 'a body was sent but none is declared');
      else {
        const v = validate(reqSchema);
        if (!v(reqBody)) for (const d of details(v.errors)) judge(operation, 'request', d);
      }
    } else if (op.requestBody?.required) judge(operation, 'request', 'no body, one is required');
    const declared = deref(op.responses?.[String(ex.status)] ?? op.responses?.default, doc);
    if (!declared) {
      judge(operation, 'status', `${ex.status} not declared (declared: ${Object.keys(op.responses ?? {}).join(', ')})`);
      continue;
    }
    const resSchema = declared.content?.['application/json']?.schema;
    const resBody = parse(ex.responseBody);
    if (resSchema) {
      const v = validate(resSchema);
      if (!v(resBody)) for (const d of details(v.errors)) judge(operation, 'response', `${ex.status} ${d}`);
    } else if (resBody !== undefined) judge(operation, 'response', `${ex.status} a body was sent but none is declared`);
  }
  return report;
}
