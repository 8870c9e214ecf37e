/**
 * The pure part of scripts/vendor-reference.mjs: the subset of an OpenAPI document that a selection
 * of operations and schemas needs, shapes only (no descriptions, examples or extensions). Kept apart
 * from the script, which reads the reference document beside the repository, so that a test can
 * check the vendored fixture against this function without importing anything that names a path
 * outside the repository.
 */
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
/** Keys that describe rather than constrain: never read by a validator. */
const DESCRIPTIVE = new Set(['description', 'summary', 'example', 'examples', 'externalDocs', 'title', 'tags', 'operationId', 'security', 'deprecated', 'xml']);
/** Keys whose value is a map of user-chosen names (a property called `description` is kept). */
const NAME_MAPS = new Set(['properties', 'responses', 'content', 'headers', 'links', 'callbacks']);

/** `node` without its descriptive keys; names in property/response/content maps are kept as they are. */
export function shapeOnly(node, isNameMap = false) {
  if (Array.isArray(node)) return node.map((n) => shapeOnly(n));
  if (!node || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (!isNameMap && (DESCRIPTIVE.has(k) || k.startsWith('x-'))) continue;
    // enum and default values are data, not schemas: copied as they are.
    out[k] = !isNameMap && (k === 'enum' || k === 'default') ? v : shapeOnly(v, !isNameMap && NAME_MAPS.has(k));
  }
  return out;
}

/** Every `#/components/...` reference under `node`, as [section, name]. */
function refsOf(node, acc = []) {
  if (Array.isArray(node)) for (const n of node) refsOf(n, acc);
  else if (node && typeof node === 'object') {
    if (typeof node.$ref === 'string') {
      const m = /^#\/components\/([^/]+)\/(.+)$/.exec(node.$ref);
      if (m) acc.push([m[1], m[2]]);
    }
    for (const v of Object.values(node)) refsOf(v, acc);
  }
  return acc;
}

/**
 * The subset of `doc` that `selection` ({operations: ["GET /path/{id}"], schemas: ["Name"]}) needs.
 * Throws, naming them, when an operation or a schema of the selection is not in the document.
 */
export function extractSubset(doc, selection) {
  const missing = [];
  const paths = {};
  for (const op of [...selection.operations].sort()) {
    const [method, template] = op.split(' ');
    const item = doc.paths?.[template];
    const operation = item?.[method.toLowerCase()];
    if (!operation) {
      missing.push(`operation ${op}`);
      continue;
    }
    paths[template] ??= {};
    if (item.parameters) paths[template].parameters = shapeOnly(item.parameters);
    paths[template][method.toLowerCase()] = shapeOnly(operation);
  }
  const components = {};
  const queue = [...Object.values(paths).flatMap((p) => refsOf(p)), ...selection.schemas.map((n) => ['schemas', n])];
  while (queue.length > 0) {
    const [section, name] = queue.shift();
    if (components[section]?.[name] !== undefined) continue;
    const found = doc.components?.[section]?.[name];
    if (found === undefined) {
      missing.push(`components.${section}.${name}`);
      continue;
    }
    const kept = shapeOnly(found);
    (components[section] ??= {})[name] = kept;
    queue.push(...refsOf(kept));
  }
  if (missing.length > 0) throw new Error(`not in the reference document: ${missing.join(', ')}`);
  const sorted = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
  const index = Object.entries(doc.paths ?? {})
    .flatMap(([t, item]) => METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${t}`))
    .sort();
  return {
    openapi: doc.openapi,
    info: { title: doc.info?.title, version: doc.info?.version },
    paths: sorted(paths),
    components: Object.fromEntries(Object.keys(components).sort().map((s) => [s, sorted(components[s])])),
    'x-operation-index': index,
  };
}

