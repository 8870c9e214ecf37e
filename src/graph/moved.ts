/**
 * `moved:` entries, checked offline against the declared addresses (validate and plan make the
 * same checks, here): each address well-formed and of a kind that can be renamed, `from` and `to`
 * of the same kind in the same parent, `to` declared (or the `from` of the next entry of a chain),
 * `from` no longer declared, no `from` twice, no cycle. The entries that pass are returned in
 * canonical address form for the plan's live matching (src/plan/moved.ts).
 */
import type { Diagnostic, SourceRange } from '../diag/diagnostic.js';
import { error, warning } from '../diag/diagnostic.js';
import type { MovedSpec } from '../manifest/types.js';
import { sourceOf } from '../manifest/types.js';
import type { Address, DesiredResource, MovedEntry, ResourceKind } from '../model/resource.js';
import { addressOf, matchKey, parentAddress, SERVICE_KINDS, unescapeName } from '../model/resource.js';
import { kindsWhere } from '../model/kinds/index.js';
import { nearest } from '../manifest/suggest.js';


/** The kinds a `moved` entry can rename, with the kind of parent each one has (undefined: top level). */
const RENAMABLE: ReadonlyMap<ResourceKind, ReadonlyArray<ResourceKind | undefined>> = new Map<ResourceKind, ReadonlyArray<ResourceKind | undefined>>([
  ['project', [undefined]],
  ['annotations_group', [undefined]],
  ['labels_group', [undefined]],
  ['environment', ['project']],
  ['deployment_stage', ['environment']],
  ...SERVICE_KINDS.map((k) => [k, ['environment']] as [ResourceKind, ResourceKind[]]),
  ['variable', kindsWhere((d) => d.holdsVariables === true)],
]);

const SHAPES =
  'project.P, annotations_group.G, labels_group.G, project.P/environment.E, project.P/environment.E/deployment_stage.S, ' +
  `project.P/environment.E/<${SERVICE_KINDS.join('|')}>.NAME, and <project, environment or service address>/variable.KEY`;

interface Segment {
  kind: ResourceKind;
  name: string;
}

/** The segments of a well-formed address, or why it is not one. */
export function parseMovedAddress(text: string): { segments: Segment[] } | { problem: string } {
  const segments: Segment[] = [];
  const parts = text.split('/');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const dot = part.indexOf('.');
    if (dot <= 0 || dot === part.length - 1) return { problem: `segment ${i + 1} ("${part}") is not \`kind.name\`` };
    const kind = part.slice(0, dot) as ResourceKind;
    const parents = RENAMABLE.get(kind);
    if (!parents) return { problem: `"${part.slice(0, dot)}" is not a kind a rename applies to` };
    const parentKind = segments[i - 1]?.kind;
    if (!parents.includes(parentKind)) {
      return { problem: parentKind === undefined ? `${an(kind)} cannot be at the top of an address` : `${an(kind)} cannot be inside ${an(parentKind)}` };
    }
    segments.push({ kind, name: unescapeName(part.slice(dot + 1)) });
  }
  return { segments };
}

function canonical(segments: Segment[]): Address {
  let a: Address | undefined;
  for (const s of segments) a = addressOf(s.kind, s.name, a);
  return a!;
}


function lastName(address: Address): string {
  const last = address.slice(address.lastIndexOf('/') + 1);
  return unescapeName(last.slice(last.indexOf('.') + 1));
}

function kindOf(address: Address): ResourceKind {
  const last = address.slice(address.lastIndexOf('/') + 1);
  return last.slice(0, last.indexOf('.')) as ResourceKind;
}

/** `an application`, `a project`. */
function an(kind: string): string {
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;
}

function at(range: SourceRange | undefined): string {
  return range ? ` (${range.file}:${range.start.line}:${range.start.col})` : '';
}

/**
 * The address an object had before the renames of `moves` (keyed by matchKey of `to`): the entry
 * that renames it, else the same name under its parent's original address. Pure; guarded against
 * cycles (reported separately).
 */
export function originalAddress(address: Address, toFrom: ReadonlyMap<string, Address>, seen: Set<string> = new Set()): Address {
  const key = matchKey(address);
  if (seen.has(key)) return address;
  seen.add(key);
  const from = toFrom.get(key);
  if (from !== undefined) return originalAddress(from, toFrom, seen);
  const parent = parentAddress(address);
  return parent === undefined ? address : `${originalAddress(parent, toFrom, seen)}${address.slice(parent.length)}`;
}

/**
 * `moved` checked: `moved`, the entries that pass; `named`, every well-formed entry (those refused
 * too), whose `from` the plan never deletes (a refused rename must not turn into a deletion).
 */
export function checkMoved(
  specs: readonly MovedSpec[] | undefined,
  resources: ReadonlyMap<Address, DesiredResource>,
): { moved: MovedEntry[]; named: MovedEntry[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  if (!specs || specs.length === 0) return { moved: [], named: [], diagnostics };
  const declared = new Map<string, Address>();
  for (const a of resources.keys()) declared.set(matchKey(a), a);

  // 1. Each entry on its own: both addresses well-formed, same kind.
  const parsed: MovedEntry[] = [];
  // Where each side of an entry is written: a diagnostic about `to` points at `to`, not the entry.
  const specOf = new Map<MovedEntry, MovedSpec>();
  for (const spec of specs) {
    const source = sourceOf(spec);
    let ok = true;
    const addresses: Partial<Record<'from' | 'to', Address>> = {};
    for (const field of ['from', 'to'] as const) {
      const p = parseMovedAddress(spec[field]);
      if ('problem' in p) {
        ok = false;
        diagnostics.push(
          error('moved.bad-address', `moved ${field}: "${spec[field]}" is not an address a rename applies to: ${p.problem}`, {
            detail: `Write the address as plan prints it. Allowed shapes: ${SHAPES}.`,
            range: sourceOf(spec, field),
          }),
        );
      } else addresses[field] = canonical(p.segments);
    }
    if (!ok) continue;
    const from = addresses.from!, to = addresses.to!;
    if (kindOf(from) !== kindOf(to)) {
      diagnostics.push(
        error('moved.kind-mismatch', `moved: ${from} is ${an(kindOf(from))} and ${to} ${an(kindOf(to))}`, {
          detail: 'A rename keeps the kind of the object: `from` and `to` must name the same kind (a service keeps its type; delete and create to change it).',
          range: sourceOf(spec, 'to'),
        }),
      );
      continue;
    }
    if (matchKey(from) === matchKey(to)) {
      // A name that differs only in case is the same name for a kind named case-insensitively
      // (plan never writes such a difference): saying the two are "both" one address would read
      // as a typo in the entry.
      diagnostics.push(
        from === to
          ? warning('moved.same-address', `moved: from and to are both ${to}; the entry does nothing`, { detail: 'Remove it.', range: source })
          : warning('moved.same-address', `moved: ${from} and ${to} differ only in case; the entry does nothing`, {
              detail: `The names of ${an(kindOf(to))} are compared case-insensitively: ${lastName(from)} and ${lastName(to)} are one name, so plan neither renames nor changes it. Remove the entry; to change only the case of the name, change it in the console.`,
              range: source,
            }),
      );
      continue;
    }
    const entry: MovedEntry = { from, to, ...(source ? { source } : {}) };
    specOf.set(entry, spec);
    parsed.push(entry);
  }

  // 2. Across entries: one `from` once, one `to` once, no cycle.
  const byFrom = new Map<string, MovedEntry>();
  const oneFrom: MovedEntry[] = [];
  for (const e of parsed) {
    const first = byFrom.get(matchKey(e.from));
    if (first) {
      diagnostics.push(
        error('moved.duplicate-from', `moved: ${e.from} is renamed twice${at(first.source)}`, {
          detail: `An object can be renamed to one address only: keep one of the entries (to ${first.to} or to ${e.to}).`,
          range: e.source,
        }),
      );
      continue;
    }
    byFrom.set(matchKey(e.from), e);
    oneFrom.push(e);
  }
  const byTo = new Map<string, MovedEntry>();
  const unique: MovedEntry[] = [];
  for (const e of oneFrom) {
    const first = byTo.get(matchKey(e.to));
    if (first) {
      // Two objects cannot become one: whichever the plan picked, the other would be deleted.
      diagnostics.push(
        error('moved.duplicate-to', `moved: two entries rename to ${e.to}: ${first.from} and ${e.from}${at(first.source)}`, {
          detail: `One live object can take the address ${e.to}: keep the entry whose \`from\` is the live object's address and remove the other.`,
          range: sourceOf(specOf.get(e)!, 'to') ?? e.source,
        }),
      );
      byFrom.delete(matchKey(e.from));
      continue;
    }
    byTo.set(matchKey(e.to), e);
    unique.push(e);
  }
  const inCycle = new Set<MovedEntry>();
  for (const start of unique) {
    const path: MovedEntry[] = [];
    const seen = new Set<MovedEntry>();
    for (let e: MovedEntry | undefined = start; e !== undefined; e = byFrom.get(matchKey(e.to))) {
      if (seen.has(e)) {
        if (e === start && !inCycle.has(start)) {
          for (const x of path) inCycle.add(x);
          diagnostics.push(
            error('moved.cycle', `moved entries form a cycle: ${[...path.map((x) => x.from), start.from].join(' -> ')}`, {
              detail: 'Each object must end at one declared address: remove the entry that points back.',
              range: start.source,
            }),
          );
        }
        break;
      }
      seen.add(e);
      path.push(e);
    }
  }
  const acyclic = unique.filter((e) => !inCycle.has(e));

  // 3. Against the manifest: `to` declared (or continued by a chain), `from` not declared, one parent.
  const toFrom = new Map(acyclic.map((e) => [matchKey(e.to), e.from]));
  const moved: MovedEntry[] = [];
  for (const e of acyclic) {
    let ok = true;
    if (!declared.has(matchKey(e.to)) && !byFrom.has(matchKey(e.to))) {
      ok = false;
      const kind = kindOf(e.to);
      const sameKind = [...resources.values()].filter((r) => r.kind === kind).map((r) => r.address);
      const hint = nearest(e.to, sameKind);
      diagnostics.push(
        error('moved.to-not-declared', `moved to: ${e.to} is not declared in the manifest`, {
          detail: `${hint ? `Did you mean \`${hint}\`? ` : ''}\`to\` is the object's new address, declared in the manifest (or the \`from\` of a later entry of a chain).`,
          range: sourceOf(specOf.get(e)!, 'to') ?? e.source,
        }),
      );
    }
    if (declared.has(matchKey(e.from))) {
      ok = false;
      diagnostics.push(
        error('moved.from-declared', `moved from: ${e.from} is still declared in the manifest`, {
          detail: `\`from\` is the old address: once the object is renamed to ${e.to}, the manifest declares it there only. Remove the declaration of ${e.from}${at(resources.get(declared.get(matchKey(e.from))!)?.source)} or this entry.`,
          range: sourceOf(specOf.get(e)!, 'from') ?? e.source,
        }),
      );
    }
    // Known offline when the new key is declared as an override (plan checks the live side too).
    const declaredTo = resources.get(declared.get(matchKey(e.to)) ?? '');
    if (declaredTo?.kind === 'variable' && declaredTo.attrs.variable_type === 'OVERRIDE') {
      ok = false;
      diagnostics.push(
        error('moved.override-key', `moved: ${e.to} is an override, and the API cannot change an override's key`, {
          detail: `An override has the key of the variable it overrides. Remove this entry: the override ${lastName(e.from)} is then deleted and ${declaredTo.name} created (with \`prune: {variables: true}\` on its scope), or rename the variable it overrides.`,
          address: e.to,
          range: sourceOf(specOf.get(e)!, 'to') ?? e.source,
        }),
      );
    }
    const pf = parentAddress(e.from), pt = parentAddress(e.to);
    if (pf !== undefined && pt !== undefined && matchKey(originalAddress(pf, toFrom)) !== matchKey(originalAddress(pt, toFrom))) {
      ok = false;
      diagnostics.push(
        error('moved.other-parent', `moved: ${e.from} and ${e.to} are not in the same ${kindOf(pt)}`, {
          detail: `A rename changes a name only: the API cannot move ${an(kindOf(e.to))} into another ${kindOf(pt)}. Rename the ${kindOf(pt)} itself with its own entry, or delete and create the ${kindOf(e.to)}.`,
          range: e.source,
        }),
      );
    }
    if (ok) moved.push(e);
  }
  return { moved, named: parsed, diagnostics };
}
