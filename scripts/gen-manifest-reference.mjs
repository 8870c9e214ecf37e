#!/usr/bin/env node
/**
 * Writes docs/manifest-reference.md from schemas/manifest.schema.json: every field of a manifest with
 * its type, default, an example, whether setting or changing it deletes anything, and its
 * description. The schema is the one source (editors show the same titles and descriptions on
 * hover), so the reference is generated, never edited by hand.
 *
 * Run `npm run docs:reference` after changing the schema; test/manifest/manifest-reference.test.ts
 * fails while the committed page is not what this writes. `--check` exits 1 instead of writing when
 * the page is out of date.
 *
 * What deletes, and why it is listed here rather than read from the schema: the JSON Schema has no
 * keyword for it (and the manifest validator runs ajv in strict mode, which refuses unknown
 * keywords), so the rules are below, next to the code that applies them:
 * - every key of a `prune` block deletes, when true, the undeclared objects of its kind in its scope;
 * - REPLACES: fields that cannot change in place (src/graph/attrs.ts IMMUTABLE_FIELDS): a change
 *   deletes the object and creates it again;
 * - OWNS_LIST: keys whose declaration owns a list, so that an item left out of it is deleted.
 * The test also fails when a field's description speaks of deleting or replacing and none of these
 * rules classifies it, so a new such field cannot be left out of the column.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SCHEMA_FILE = fileURLToPath(new URL('../schemas/manifest.schema.json', import.meta.url));
const OUT_FILE = fileURLToPath(new URL('../docs/manifest-reference.md', import.meta.url));

const REPLACE_NOTE = '**replaces**: a change deletes the object and creates it again';
/** Schema pointer of a field -> what changing it deletes (IMMUTABLE_FIELDS, in the manifest's words). */
export const REPLACES = {
  '/definitions/environment/properties/cluster': `${REPLACE_NOTE}, with everything in it (blocked without \`--allow-replace\`)`,
  '/definitions/database/properties/database_type': `${REPLACE_NOTE}, and its data (blocked without \`--allow-data-loss\`, and \`--allow-replace\` when deployed)`,
  '/definitions/database/properties/mode': `${REPLACE_NOTE}, and its data (blocked without \`--allow-data-loss\`, and \`--allow-replace\` when deployed)`,
  '/properties/alert_rules/items/properties/target': REPLACE_NOTE,
  '/definitions/variable/properties/secret': REPLACE_NOTE,
  '/definitions/variable/properties/mount_path': REPLACE_NOTE,
  '/definitions/variable/properties/alias': REPLACE_NOTE,
  '/definitions/variable/properties/override': REPLACE_NOTE,
};
/** Schema pointer of a field -> what declaring it deletes. */
export const OWNS_LIST = {
  '/definitions/application/properties/storage': '**yes**, once declared: a live volume left out of the list is deleted',
  '/definitions/container/properties/storage': '**yes**, once declared: a live volume left out of the list is deleted',
  '/definitions/application/properties/healthchecks': '**yes**, once declared: a live probe left out is removed',
  '/definitions/container/properties/healthchecks': '**yes**, once declared: a live probe left out is removed',
};

/** Schema pointer of a field -> what the `driftless preview` commands delete because of it (never `apply`). */
export const PREVIEW_DELETES = {
  '/definitions/project/properties/previews': '**no** for `apply` (it leaves matching environments alone); `preview down` and `preview prune` delete the previews it makes',
  '/definitions/project/properties/previews/properties/ttl': '**yes**, by `preview prune`: previews older than this are deleted',
  '/definitions/project/properties/previews/properties/allow_data_loss': "**yes**, when true: a preview's databases are deleted with it",
};

/** Definitions that are generated copies (scripts/gen-override-schema.mjs): described once, not listed. */
const isGeneratedPartial = (name) => name === 'service_override' || name.startsWith('partial_');

const code = (s) => {
  const text = String(s);
  const ticks = text.includes('`') ? '``' : '`';
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
};
const cell = (s) => String(s).replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
const json = (v) => JSON.stringify(v);
const refName = (ref) => ref.replace('#/definitions/', '');

/**
 * Examples of free-text fields and names by field name, for the fields whose schema has no example
 * and whose type says nothing an example could be derived from (a string, a name): the values of
 * examples/realistic where it has the field.
 */
const FIELD_EXAMPLES = {
  description: 'Managed by driftless',
  annotation_groups: ['observability'],
  label_groups: ['cost-center'],
  icon_uri: 'https://example.com/icons/api.svg',
  arguments: ['--since', '24h'],
  entrypoint: '/app/bin/start',
  project: 'shop',
  environment: 'production',
  service: 'api',
  services: ['api', 'storefront'],
  cluster: 'production-cluster',
  database: 'postgres',
  tag: 'shop-team',
  summary: 'shop API CPU above 80% for 10 minutes',
  severity: 'critical',
  repository: 'https://github.com/acme/infrastructure',
  project_names_filter: ['shop'],
  owner: 'platform-team',
  auth_username: 'alerts@example.com',
  host: 'localhost',
  file: 'replicaCount: 2',
  dockerfile_path: 'Dockerfile',
  chart_path: 'charts/api',
  set_string: { 'image.tag': 'v1.2.3' },
};

/** A string, a name, or a list or map of them (what FIELD_EXAMPLES may illustrate), not an object or a flag. */
function textual(node, defs) {
  if (!node || typeof node !== 'object') return false;
  if (node.$ref) return textual(defs[refName(node.$ref)], defs);
  if (node.type === 'string') return node.enum === undefined;
  if (node.type === 'array') return textual(node.items, defs);
  if (node.type === 'object') return !node.properties && typeof node.additionalProperties === 'object' && textual(node.additionalProperties, defs);
  return false;
}

/** Longest example derived from the schema that the table shows (a longer one: see the linked object). */
const MAX_EXAMPLE = 120;

/**
 * An example of a field the schema gives none for, derived from the schema alone (so that every row
 * has one and it stays true to the schema): an enumeration's first value other than the default, a
 * boolean's non-default value, a number's default or minimum, a string's default or an address of its
 * format, a list of one example item, an object of its required fields (or its first one), a map of
 * one entry. Undefined when nothing sensible can be said in a short line.
 */
export function derivedExample(node, defs, depth = 0, field = undefined) {
  if (!node || typeof node !== 'object' || depth > 4) return undefined;
  if (node.examples?.length) return node.examples[0];
  if (field !== undefined && FIELD_EXAMPLES[field] !== undefined && textual(node, defs)) return FIELD_EXAMPLES[field];
  if (node.$ref) return derivedExample(defs[refName(node.$ref)], defs, depth);
  if (node.const !== undefined) return node.const;
  if (node.enum) return node.enum.find((v) => v !== node.default) ?? node.enum[0];
  if (node.if && node.then) return derivedExample(node.then, defs, depth);
  const alternatives = node.oneOf ?? node.anyOf;
  if (alternatives) {
    for (const a of alternatives) {
      const e = derivedExample(a, defs, depth);
      if (e !== undefined) return e;
    }
    return undefined;
  }
  const type = Array.isArray(node.type) ? node.type[0] : node.type;
  if (type === 'boolean') return node.default !== true;
  if (type === 'integer' || type === 'number') return node.default ?? node.minimum ?? (node.exclusiveMinimum !== undefined ? node.exclusiveMinimum + 1 : 1);
  if (type === 'string') {
    if (typeof node.default === 'string' && node.default !== '') return node.default;
    if (node.format === 'uri') return 'https://example.com/path';
    if (node.format === 'email') return 'ops@example.com';
    if (node.format === 'date-time') return '2026-01-31T12:00:00Z';
    if (node.format === 'uuid') return '5b0f5c8e-2d0a-4b7e-9a3c-1f2e3d4c5b6a';
    return undefined;
  }
  if (type === 'array' || (type === undefined && node.items)) {
    const item = derivedExample(node.items, defs, depth + 1);
    return item === undefined ? undefined : [item];
  }
  if (type === 'object' || node.properties || node.additionalProperties) {
    if (node.properties) {
      const required = (node.required ?? []).filter((k) => node.properties[k]);
      const keys = required.length > 0 ? required : Object.keys(node.properties).slice(0, 1);
      const out = {};
      const add = (k) => {
        const v = derivedExample(node.properties[k], defs, depth + 1, k);
        if (v !== undefined) out[k] = v;
        return v !== undefined;
      };
      if (!keys.every(add)) return undefined;
      // Fields required only of some values (`allOf: [{if: {type: SLACK}, then: {required: [...]}}]`):
      // those of the values the example has.
      for (const c of node.allOf ?? []) {
        const cond = c.if?.properties ?? {};
        const holds = Object.entries(cond).every(([k, v]) => (v.const !== undefined ? out[k] === v.const : Array.isArray(v.enum) ? v.enum.includes(out[k]) : k in out));
        if (c.if && holds && !(c.then?.required ?? []).filter((k) => node.properties[k] && !(k in out)).every(add)) return undefined;
      }
      if (flow(out).length <= MAX_EXAMPLE) return out;
      // Too long for a table cell: its first field, and an ellipsis for the others (see its section).
      const [first] = Object.keys(out);
      return { [first]: out[first], [MORE]: true };
    }
    if (node.additionalProperties && typeof node.additionalProperties === 'object') {
      const v = derivedExample(node.additionalProperties, defs, depth + 1);
      return v === undefined ? undefined : { key: v };
    }
  }
  return undefined;
}

/** The key of a derived object example that stands for the fields left out (written `…`). */
const MORE = '\u2026';

/** A value as YAML flow style, as it would be written in a manifest (`{project: shop, cpu: 250}`). */
export function flow(v) {
  if (Array.isArray(v)) return `[${v.map(flow).join(', ')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => (k === MORE ? MORE : `${k}: ${flow(x)}`)).join(', ')}}`;
  if (typeof v === 'string') return /^[A-Za-z_][\w.\/:@-]*$/.test(v) && !/^(true|false|null|yes|no|on|off|~)$/i.test(v) && !/:(\s|$)/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v);
}

/**
 * The reference page for `schema`. Pure: the same schema always gives the same bytes.
 */
export function renderManifestReference(schema) {
  return build(schema).page;
}

/** Every field row of the reference: {pointer, field, deletes, description, ...}, in page order. */
export function referenceRows(schema) {
  return build(schema).rows;
}

function build(schema) {
  const defs = schema.definitions ?? {};
  /** Sections in order: {id, title, node, pointer, usedAt: Set}. */
  const sections = new Map();
  const isObjectDef = (name) => {
    const d = defs[name];
    return d && (d.type === 'object' || Array.isArray(d.oneOf));
  };

  const section = (id, title, node, pointer) => {
    if (!sections.has(id)) sections.set(id, { id, title, node, pointer, usedAt: new Set() });
    return sections.get(id);
  };

  /** Markdown type of a schema node; registers the sections it links to. */
  const typeOf = (node, where, pointer) => {
    if (!node || typeof node !== 'object') return '';
    if (node.$ref) {
      const name = refName(node.$ref);
      if (isGeneratedPartial(name)) {
        const base = name === 'service_override' ? 'service' : name.replace(/^partial_/, '');
        visitDef(base, where);
        return `[${base}](#${base}) fields, none required`;
      }
      visitDef(name, where);
      return `[${name}](#${anchor(name)})`;
    }
    if (node.const !== undefined) return code(json(node.const));
    if (node.enum) return node.enum.map((v) => code(json(v))).join(' or ');
    if (node.if && node.then && node.else) return `${typeOf(node.then, where, pointer)} or ${typeOf(node.else, where, pointer)}`;
    // `if: {type: object}, then: ...` alone: the then schema, for the values the if selects.
    if (node.if && node.then) return typeOf(node.then, where, pointer);
    const alternatives = node.oneOf ?? node.anyOf;
    if (alternatives) return alternatives.map((a, i) => typeOf(a, where, `${pointer}/${node.oneOf ? 'oneOf' : 'anyOf'}/${i}`)).join(' or ');
    const type = node.type;
    if (type === 'array' || (type === undefined && node.items)) return `list of ${typeOf(node.items, `${where}[]`, `${pointer}/items`) || 'any'}`;
    if (type === 'object' || node.properties) {
      if (node.properties) {
        const s = section(where, where, node, pointer);
        s.usedAt.add(where);
        return `[object](#${anchor(where)})`;
      }
      if (node.additionalProperties && typeof node.additionalProperties === 'object') return `map of name to ${typeOf(node.additionalProperties, `${where}.*`, `${pointer}/additionalProperties`)}`;
      return 'object';
    }
    if (Array.isArray(type)) return type.join(' or ');
    let t = type ?? 'any';
    const lo = node.minimum ?? node.exclusiveMinimum;
    const hi = node.maximum ?? node.exclusiveMaximum;
    if (lo !== undefined && hi !== undefined) t += `, ${lo} to ${hi}`;
    else if (lo !== undefined) t += `, at least ${lo}`;
    else if (hi !== undefined) t += `, at most ${hi}`;
    return t;
  };

  const visited = new Set();
  function visitDef(name, where) {
    const s = section(name, name, defs[name], `/definitions/${name}`);
    s.usedAt.add(where);
    if (visited.has(name)) return;
    visited.add(name);
  }

  // The top level first, then every definition reached from it, in the order they are reached.
  section('top-level', 'Top level', schema, '');
  const rows = new Map(); // section id -> rendered rows
  const renderRows = (s) => {
    if (rows.has(s.id)) return;
    rows.set(s.id, []);
    const node = s.node;
    const out = [];
    if (node.properties) {
      const required = new Set(node.required ?? []);
      for (const [field, prop] of Object.entries(node.properties)) {
        const pointer = `${s.pointer}/properties/${field}`;
        const childWhere = s.id === 'top-level' ? field : `${s.id}.${field}`;
        const type = typeOf(prop, childWhere, pointer);
        const target = prop.$ref ? defs[refName(prop.$ref)] ?? {} : {};
        const dflt = prop.default ?? (prop.$ref ? target.default : undefined);
        const example = (prop.examples ?? target.examples ?? [])[0] ?? derivedExample(prop, defs, 0, field);
        out.push({ pointer, field, type, required: required.has(field), dflt, example, deletes: deletesOf(s, field, prop, pointer), description: prop.description ?? target.description ?? '' });
      }
    }
    if (Array.isArray(node.oneOf)) for (const a of node.oneOf) if (a.$ref) visitDef(refName(a.$ref), s.id);
    rows.set(s.id, out);
  };
  const deletesOf = (s, field, prop, pointer) => {
    if (s.id === 'prune') return '**yes**, when `true`';
    // `protect` is the opposite of a deletion: it forbids the object's deletion and replacement.
    if (field === 'protect') return '**no**: `true` forbids deleting or replacing it, whatever the flags';
    if (field === 'prune' && (prop.$ref === '#/definitions/prune' || prop.properties)) return '**yes**: see [prune](#prune)';
    return REPLACES[pointer] ?? OWNS_LIST[pointer] ?? PREVIEW_DELETES[pointer] ?? '';
  };

  // Render breadth-first: rendering a section registers the sections its fields refer to.
  for (let i = 0; i < sections.size; i++) {
    const s = [...sections.values()][i];
    if (s.node) renderRows(s);
  }

  const lines = [];
  lines.push('# Manifest reference');
  lines.push('');
  lines.push('<!-- Generated from schemas/manifest.schema.json by scripts/gen-manifest-reference.mjs (npm run docs:reference). Do not edit: change the schema and regenerate. -->');
  lines.push('');
  lines.push('Every field of a driftless manifest, from [`schemas/manifest.schema.json`](../schemas/manifest.schema.json)');
  lines.push('(the schema your editor uses through the modeline). How the pieces fit together, with examples:');
  lines.push('[the manifest](manifest.md).');
  lines.push('');
  lines.push('- **type**: a link leads to the object, or to the string rules of a name or key.');
  lines.push('- **default**: the value in effect when the field is left out: always for the manifest\'s own');
  lines.push('  settings (`version`, `scope`, `prune`); for a field of a live object, when driftless creates the');
  lines.push('  object (a field left out of an object that exists is not managed: never compared, never changed).');
  lines.push('- **deletes**: **yes** where setting the field makes `apply` delete live objects; **replaces** where');
  lines.push('  changing it deletes the object and creates it again. Nothing else deletes anything: removing an');
  lines.push('  object from the manifest deletes it only where a `prune` of its scope says so.');
  lines.push('');
  for (const s of sections.values()) {
    const node = s.node ?? {};
    lines.push(`## ${s.id === 'top-level' ? 'Top level' : code(s.id)}`.replace(/^## `([a-z_]+)`$/, '## $1'));
    lines.push('');
    const used = [...s.usedAt].filter((u) => u !== s.id);
    if (s.id !== 'top-level' && used.length && (node.properties || node.oneOf)) lines.push(`Used at: ${used.sort().map((u) => code(u)).join(', ')}.`, '');
    if (node.title && s.id !== 'top-level') lines.push(`**${cell(node.title)}.** ${node.description ?? ''}`.trimEnd(), '');
    else if (node.description) lines.push(node.description, '');
    if (Array.isArray(node.oneOf)) {
      lines.push(`One of: ${node.oneOf.map((a) => (a.$ref ? `[${refName(a.$ref)}](#${anchor(refName(a.$ref))})` : code(json(a)))).join(', ')}${node.discriminator ? `, chosen by \`${node.discriminator.propertyName}\`` : ''}.`, '');
    }
    const r = rows.get(s.id);
    if (r && r.length) {
      lines.push('| field | type | default | example | deletes | description |');
      lines.push('|---|---|---|---|---|---|');
      for (const row of r) {
        const field = `${code(row.field)}${row.required ? ' (required)' : ''}`;
        const dflt = row.dflt === undefined ? '' : code(json(row.dflt));
        const example = row.example === undefined ? '' : code(typeof row.example === 'string' ? row.example : flow(row.example));
        lines.push(`| ${[field, row.type, dflt, example, row.deletes, row.description].map(cell).join(' | ')} |`);
      }
      lines.push('');
    } else if (!node.properties && !node.oneOf) {
      lines.push(`Type: ${typeOf(node, s.id, s.pointer)}.`, '');
    }
  }
  return { page: `${lines.join('\n').trimEnd()}\n`, rows: [...rows.values()].flat() };
}

/** GitHub's anchor of a `## name` heading. */
function anchor(id) {
  return id.toLowerCase().replace(/[^\p{L}\p{N}\p{M} _-]/gu, '').replace(/ /g, '-');
}

function main() {
  const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'));
  const page = renderManifestReference(schema);
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(OUT_FILE, 'utf8');
    } catch {}
    if (current !== page) {
      process.stderr.write('docs/manifest-reference.md is out of date: run npm run docs:reference\n');
      process.exit(1);
    }
    return;
  }
  writeFileSync(OUT_FILE, page);
  process.stdout.write(`wrote ${OUT_FILE}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
