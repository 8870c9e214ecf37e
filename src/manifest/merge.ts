/**
 * Merging the files of a manifest directory into one Manifest.
 *
 * Each file is a partial manifest, so that a repository can keep one file per team or per
 * environment. The organization-level lists (clusters, groups, receivers, rules, webhooks, moved) are
 * concatenated in file order (files are sorted by path, so the result is deterministic);
 * `organization`, `prune` and `scope` may be written in one file only.
 *
 * Projects, and the environments and templates inside them, are containers: the same project (or
 * environment, or template), by name, declared in several files is ONE object. Its lists
 * (variables, services, deployment stages, environments...) are the concatenation of what each
 * file lists, in file order; an environment's `overrides` merge entry by entry (each file writes
 * the overrides of its own services); each of its other attributes (description, cluster, mode,
 * prune, template...) is written in one place only, and a second one is an error that names both
 * places. Inside one file a container is declared once: a second declaration there stays a
 * duplicate.
 *
 * Whether a name ended up declared twice (a service, a variable key, a stage listed by two files)
 * is checked afterwards (duplicates.ts) over the merged result, where every entry keeps the
 * source range of the file it came from; what a partial declaration may leave to another file is
 * checked once everything is merged (completeness.ts).
 */
import type { Diagnostic, SourceRange } from '../diag/diagnostic.js';
import { error } from './codes.js';
import { attachFieldSource, attachSource, fieldSourceOf, keySourceOf } from './source-map.js';
import { sourceOf, type Manifest } from './types.js';
import { formatRange } from '../diag/excerpt.js';
import { addressOf, type Address } from '../model/resource.js';
import { withArticle } from '../render/words.js';
import { deferPositions } from './lazy-positions.js';

// `projects` merge by name (below); `moved` entries concatenate like the other lists.
const LIST_KEYS = ['clusters', 'annotation_groups', 'label_groups', 'alert_receivers', 'alert_rules', 'webhooks', 'moved'] as const;
const SINGLE_KEYS = ['organization', 'prune', 'scope'] as const;

/** How a container merges: which of its lists hold containers merged by name in turn. */
interface ContainerRule {
  /** As the object is named in messages and addresses (a template has no address of its own). */
  kind: 'project' | 'environment' | 'template';
  /** List keys whose entries are containers themselves, merged by name. */
  named: Readonly<Record<string, ContainerRule>>;
  /**
   * Mappings several files may each write part of (an environment's `overrides`): their lists
   * concatenate, and the maps named here (`overrides.services`) merge entry by entry, each entry
   * written in one file only. Any other mapping (`prune`) is one attribute.
   */
  sections?: Readonly<Record<string, { maps: readonly string[] }>>;
}

const ENVIRONMENT: ContainerRule = { kind: 'environment', named: {}, sections: { overrides: { maps: ['services'] } } };
/** A template is an environment written once (templates.ts): teams each add their services to it. */
const TEMPLATE: ContainerRule = { kind: 'template', named: {} };
const PROJECT: ContainerRule = { kind: 'project', named: { environments: ENVIRONMENT, templates: TEMPLATE } };

export interface PartialFile {
  file: string;
  /** The file's top-level mapping, already schema-valid. */
  value: Record<string, unknown>;
}

export function mergeManifestFiles(parts: readonly PartialFile[]): { manifest: Manifest; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const merged: Record<string, unknown> = { version: 1 };
  // Positions of the merged objects are copied when first asked for (deferPositions): a load
  // without a diagnostic asks for few, and the files' own positions may not be built yet.
  deferPositions(merged, () => attachSource(merged, { file: parts[0]?.file ?? '', start: { line: 1, col: 1 } }));
  for (const { value } of parts) {
    for (const key of LIST_KEYS) concatInto(merged, key, value);
    for (const key of SINGLE_KEYS) {
      if (value[key] === undefined) continue;
      if (merged[key] !== undefined) {
        const first = keySourceOf(merged, key);
        diagnostics.push(
          error('manifest.duplicate', `\`${key}\` is declared in more than one file`, {
            detail: `It was first declared at ${first ? formatRange(first) : 'another file'}; keep one of them.`,
            range: keySourceOf(value, key),
          }),
        );
        continue;
      }
      copyField(merged, key, value);
    }
  }
  const projectLists = parts.filter(({ value }) => Array.isArray(value.projects)).map(({ file, value }) => ({ file, owner: value }));
  if (projectLists.length > 0) {
    const projects = mergeNamedLists(projectLists, 'projects', PROJECT, { text: '' }, diagnostics);
    merged.projects = projects;
    attachListField(merged, 'projects', projectLists[0]!.owner);
  }
  return { manifest: merged as unknown as Manifest, diagnostics };
}

/** Appends `from[key]` (a list) to `into[key]`, each entry keeping the range it was written at. */
function concatInto(into: Record<string, unknown>, key: string, from: Record<string, unknown>): void {
  const list = from[key];
  if (!Array.isArray(list)) return;
  const target = (into[key] ??= []) as unknown[];
  const offset = target.length;
  for (const item of list) target.push(item);
  deferPositions(target, () => {
    const listRange = fieldSourceOf(from, key);
    if (offset === 0 && listRange) attachSource(target, listRange);
    for (let i = 0; i < list.length; i++) {
      const at = fieldSourceOf(list, String(i)) ?? listRange;
      if (at) attachFieldSource(target, String(offset + i), at);
    }
  });
  deferPositions(into, () => {
    const listRange = fieldSourceOf(from, key);
    if (!fieldSourceOf(into, key) && listRange) attachFieldSource(into, key, listRange, keySourceOf(from, key));
  });
}

function copyField(into: Record<string, unknown>, key: string, from: Record<string, unknown>): void {
  into[key] = from[key];
  deferPositions(into, () => {
    const at = fieldSourceOf(from, key);
    if (at) attachFieldSource(into, key, at, keySourceOf(from, key));
  });
}

/** The container a list belongs to: how messages and addresses name it (nothing at the top). */
interface Parent {
  text: string;
  address?: Address;
}

interface Declaration {
  file: string;
  value: Record<string, unknown>;
}

/**
 * The lists `owner[key]` of several files, merged: entries of the same name (case-insensitive, as
 * the API compares names) from different files become one object; everything else keeps its place.
 */
function mergeNamedLists(
  owners: ReadonlyArray<{ file: string; owner: Record<string, unknown> }>,
  key: string,
  rule: ContainerRule,
  parent: Parent,
  diagnostics: Diagnostic[],
): unknown[] {
  /** In order of first appearance: a group of declarations to merge, or an entry kept as written. */
  const entries: Array<{ group: Declaration[]; list: unknown[]; index: number; owner: Record<string, unknown> }> = [];
  const groups = new Map<string, Declaration[]>();
  for (const { file, owner } of owners) {
    const list = owner[key] as unknown[];
    list.forEach((item, i) => {
      const name = isNamed(item) ? item.name.toLowerCase() : undefined;
      const group = name === undefined ? undefined : groups.get(name);
      // A second declaration in the same file is a duplicate (reported by duplicates.ts), not a part.
      if (group && !group.some((d) => d.file === file)) {
        group.push({ file, value: item as Record<string, unknown> });
        return;
      }
      const fresh: Declaration[] = [{ file, value: item as Record<string, unknown> }];
      if (name !== undefined && !group) groups.set(name, fresh);
      entries.push({ group: fresh, list, index: i, owner });
    });
  }
  const out: unknown[] = [];
  deferPositions(out, () => {
    const firstList = owners[0]!.owner[key] as unknown[];
    const listRange = sourceOf(firstList) ?? fieldSourceOf(owners[0]!.owner, key);
    if (listRange) attachSource(out, listRange);
    entries.forEach(({ list, index, owner }, i) => {
      const range = fieldSourceOf(list, String(index)) ?? fieldSourceOf(owner, key);
      if (range) attachFieldSource(out, String(i), range);
    });
  });
  for (const { group } of entries) out.push(group.length === 1 ? group[0]!.value : mergeDeclarations(group, rule, parent, diagnostics));
  return out;
}

function isNamed(v: unknown): v is { name: string } {
  return v !== null && typeof v === 'object' && typeof (v as { name?: unknown }).name === 'string';
}

/** One object from its declarations in several files (at least two, all of the same name). */
function mergeDeclarations(decls: readonly Declaration[], rule: ContainerRule, parent: Parent, diagnostics: Diagnostic[]): Record<string, unknown> {
  const first = decls[0]!.value;
  const name = first.name as string;
  const what = `${rule.kind} \`${name}\`${parent.text}`;
  const address = rule.kind === 'template' ? parent.address : addressOf(rule.kind, name, parent.address);
  const out: Record<string, unknown> = {};
  deferPositions(out, () => {
    const firstRange = sourceOf(first);
    if (firstRange) attachSource(out, firstRange);
  });
  copyField(out, 'name', first);
  for (const d of decls.slice(1)) {
    if (d.value.name === name) continue;
    const at = fieldSourceOf(d.value, 'name');
    diagnostics.push(
      error('manifest.conflict', `${rule.kind} \`${String(d.value.name)}\` is spelled \`${name}\` in another file`, {
        detail: `It is also declared at ${placeOf(fieldSourceOf(first, 'name'))}. Names are compared case-insensitively, so both declare the same ${rule.kind}: spell its name the same way in every file.`,
        ...(at ? { range: at } : {}),
        address,
      }),
    );
  }
  const keys: string[] = [];
  for (const d of decls) for (const k of Object.keys(d.value)) if (k !== 'name' && !keys.includes(k)) keys.push(k);
  for (const k of keys) {
    const holders = decls.filter((d) => d.value[k] !== undefined);
    const child = rule.named[k];
    if (child && holders.every((d) => Array.isArray(d.value[k]))) {
      out[k] = mergeNamedLists(
        holders.map((d) => ({ file: d.file, owner: d.value })),
        k,
        child,
        { text: ` of ${rule.kind} \`${name}\``, address },
        diagnostics,
      );
      attachListField(out, k, holders[0]!.value);
    } else if (holders.every((d) => Array.isArray(d.value[k]))) {
      for (const h of holders) concatInto(out, k, h.value);
    } else if (rule.sections?.[k] && holders.length > 1 && holders.every((d) => isMapping(d.value[k]))) {
      out[k] = mergeSection(
        holders.map((d) => d.value[k] as Record<string, unknown>),
        rule.sections[k]!.maps,
        { path: k, owner: what },
        address,
        diagnostics,
      );
      attachListField(out, k, holders[0]!.value);
    } else {
      // An attribute (a scalar, or a mapping such as `prune`) has one owner: where it is written.
      copyField(out, k, holders[0]!.value);
      for (const h of holders.slice(1)) {
        const at = keySourceOf(h.value, k) ?? fieldSourceOf(h.value, k);
        diagnostics.push(
          error('manifest.conflict', `\`${k}\` of ${what} is written in more than one file`, {
            detail: `It is also written at ${placeOf(keySourceOf(holders[0]!.value, k) ?? fieldSourceOf(holders[0]!.value, k))}. ${capitalized(withArticle(rule.kind))} may be declared in several files, but each of its attributes in one of them only: keep one.`,
            ...(at ? { range: at } : {}),
            address,
          }),
        );
      }
    }
  }
  return out;
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * A mapping written in part by several files (an environment's `overrides`): lists concatenate,
 * the maps named in `maps` merge entry by entry (an entry written twice, in any letter case, is an
 * error naming both places), any other value is written once.
 */
function mergeSection(
  parts: ReadonlyArray<Record<string, unknown>>,
  maps: readonly string[],
  where: { path: string; owner: string },
  address: Address | undefined,
  diagnostics: Diagnostic[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  deferPositions(out, () => {
    const firstRange = sourceOf(parts[0]);
    if (firstRange) attachSource(out, firstRange);
  });
  const twice = (what: string, at: SourceRange | undefined, first: SourceRange | undefined) =>
    diagnostics.push(
      error('manifest.conflict', `${what} is written in more than one file`, {
        detail: `It is also written at ${placeOf(first)}. Each file may write its own part of \`${where.path}\` of ${where.owner}, but each entry in one of them only: keep one.`,
        ...(at ? { range: at } : {}),
        ...(address ? { address } : {}),
      }),
    );
  const keys: string[] = [];
  for (const p of parts) for (const k of Object.keys(p)) if (!keys.includes(k)) keys.push(k);
  for (const k of keys) {
    const holders = parts.filter((p) => p[k] !== undefined);
    if (maps.includes(k) && holders.every((h) => isMapping(h[k]))) {
      const map: Record<string, unknown> = {};
      deferPositions(map, () => {
        const mapRange = sourceOf(holders[0]![k]);
        if (mapRange) attachSource(map, mapRange);
      });
      const seen = new Map<string, Record<string, unknown>>();
      for (const h of holders) {
        const entries = h[k] as Record<string, unknown>;
        for (const name of Object.keys(entries)) {
          const earlier = seen.get(name.toLowerCase());
          if (earlier) {
            const firstName = Object.keys(earlier).find((n) => n.toLowerCase() === name.toLowerCase())!;
            twice(`\`${where.path}.${k}.${name}\` of ${where.owner}`, keySourceOf(entries, name), keySourceOf(earlier, firstName));
            continue;
          }
          seen.set(name.toLowerCase(), entries);
          copyField(map, name, entries);
        }
      }
      out[k] = map;
      attachListField(out, k, holders[0]!);
    } else if (holders.every((h) => Array.isArray(h[k]))) {
      for (const h of holders) concatInto(out, k, h);
    } else {
      copyField(out, k, holders[0]!);
      for (const h of holders.slice(1)) twice(`\`${where.path}.${k}\` of ${where.owner}`, keySourceOf(h, k), keySourceOf(holders[0]!, k));
    }
  }
  return out;
}

function attachListField(into: Record<string, unknown>, key: string, from: Record<string, unknown>): void {
  deferPositions(into, () => {
    const at = fieldSourceOf(from, key);
    if (at) attachFieldSource(into, key, at, keySourceOf(from, key));
  });
}

function placeOf(r: SourceRange | undefined): string {
  return r ? formatRange(r) : 'another file';
}

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
