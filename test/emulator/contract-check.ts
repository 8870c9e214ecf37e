/**
 * Checking recorded HTTP exchanges against the emulator's own OpenAPI document: shared by the
 * CRUD contract test and the ops/variables contract test.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (a: Ajv) => Ajv;

export interface Exchange {
  method: string;
  path: string;
  body?: unknown;
  res: { status: number; body?: unknown };
}

/** The path template of the document that serves `path` (literal segments win over parameters). */
export function findTemplate(paths: string[], path: string): string | undefined {
  const clean = path.split('?')[0]!.replace(/^\/api\/v1(?=\/)/, '');
  const candidates = paths.filter((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(clean));
  return candidates.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))[0];
}

/** Inlines `#/components/...` references of `doc` so ajv can compile a fragment alone. */
export function resolveRefs(node: any, doc: any, seen: string[] = []): any {
  if (Array.isArray(node)) return node.map((n) => resolveRefs(n, doc, seen));
  if (!node || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
    if (seen.includes(node.$ref)) return {};
    const target = node.$ref.slice(2).split('/').reduce((o: any, k: string) => o?.[k], doc);
    return resolveRefs(target, doc, [...seen, node.$ref]);
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolveRefs(v, doc, seen)]));
}

/**
 * Every exchange's request body (when it succeeded), status and response body against the
 * document. `ignoreUnknown404`: a 404 on a path the document does not serve is expected (a probe
 * of a missing route), not a problem.
 */
export function checkExchanges(doc: any, log: readonly Exchange[], opts: { ignoreUnknown404?: boolean } = {}): { problems: string[]; covered: Set<string>; statuses: Set<number> } {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const cache = new Map<unknown, ValidateFunction>();
  const compile = (s: unknown) => {
    let v = cache.get(s);
    if (!v) cache.set(s, (v = ajv.compile(resolveRefs(s, doc))));
    return v;
  };
  const paths = Object.keys(doc.paths);
  const problems: string[] = [];
  const covered = new Set<string>();
  const statuses = new Set<number>();
  for (const ex of log) {
    const template = findTemplate(paths, ex.path);
    const op = template && doc.paths[template][ex.method.toLowerCase()];
    if (!op) {
      if (!(opts.ignoreUnknown404 && ex.res.status === 404)) problems.push(`${ex.method} ${ex.path}: not in the document (status ${ex.res.status})`);
      continue;
    }
    covered.add(`${ex.method} ${template}`);
    statuses.add(ex.res.status);
    const reqSchema = op.requestBody?.content?.['application/json']?.schema;
    if (ex.body !== undefined && reqSchema && ex.res.status < 400) {
      const v = compile(reqSchema);
      if (!v(structuredClone(ex.body))) problems.push(`${ex.method} ${template} request: ${ajv.errorsText(v.errors)}`);
    }
    const declared = op.responses[String(ex.res.status)];
    if (!declared) {
      problems.push(`${ex.method} ${template}: status ${ex.res.status} not declared`);
      continue;
    }
    const resSchema = declared.content?.['application/json']?.schema;
    if (resSchema) {
      const v = compile(resSchema);
      if (!v(ex.res.body)) problems.push(`${ex.method} ${template} ${ex.res.status} response: ${ajv.errorsText(v.errors)}`);
    } else if (ex.res.body !== undefined) {
      problems.push(`${ex.method} ${template} ${ex.res.status}: a body was sent but none is declared`);
    }
  }
  return { problems, covered, statuses };
}
