/**
 * Matching desired resources to live ones, with the manifest's `moved:` renames (DESIGN: the one
 * new input of the plan). Pure.
 *
 * A desired object is matched, in its parent's live object (so that everything inside a renamed
 * project or environment follows it without entries of its own), to the live object of its own
 * name, else to the live object of the name a `moved` entry gives it before (a chain a -> b -> c
 * tries b, then a). An entry whose old and new names both exist live would merge two objects: an
 * error, and nothing is renamed. An entry through which nothing was matched is stale (the rename
 * was applied, or there was nothing to rename): a warning saying it can be removed.
 */
import type { Diagnostic } from '../diag/diagnostic.js';
import { error, warning } from '../diag/diagnostic.js';
import { originalAddress } from '../graph/moved.js';
import type { Address, DesiredGraph, DesiredResource, LiveResource, LiveState, MovedEntry } from '../model/resource.js';
import { addressOf, matchKey, parentAddress, parseAddress } from '../model/resource.js';
import { nearest } from '../manifest/suggest.js';

export interface LiveMatch {
  /** Desired address -> the live address it is matched to. */
  liveOf: Map<Address, Address>;
  /** Desired addresses matched through a `moved` entry -> the live address renamed. */
  renamed: Map<Address, Address>;
  diagnostics: Diagnostic[];
  /** The live resource at an address, its names compared as their kinds compare them (matchKey). */
  find(address: Address): LiveResource | undefined;
  /** The live addresses matched (the values of liveOf), for the caller to add to. */
  claimed: Set<Address>;
  /**
   * graph.order's resources and the live resource each is matched to (`live.resources` at its
   * liveOf address), index by index: what the plan walks, without a look-up per address.
   */
  desiredInOrder: DesiredResource[];
  liveInOrder: Array<LiveResource | undefined>;
}


function lastName(address: Address): string {
  const segs = parseAddress(address);
  return segs[segs.length - 1]!.name ?? '';
}

/**
 * The earlier names of a desired object by its `moved` entries, nearest first: for a -> b, b -> c
 * and the object c, [{b, entry b->c}, {a, entry a->b}]. Entries are compared in their parent's
 * original address, so an entry may spell the parent by its old or its new name.
 */
export function previousNames(moved: readonly MovedEntry[] | undefined): (address: Address) => Array<{ name: string; entry: MovedEntry }> {
  if (!moved || moved.length === 0) return () => [];
  const toFrom = new Map(moved.map((e) => [matchKey(e.to), e.from]));
  const keyOf = (a: Address): string => {
    const p = parentAddress(a);
    return matchKey(p === undefined ? a : `${originalAddress(p, toFrom)}${a.slice(p.length)}`);
  };
  const byTo = new Map<string, MovedEntry>();
  for (const e of moved) byTo.set(keyOf(e.to), e);
  return (address) => {
    const out: Array<{ name: string; entry: MovedEntry }> = [];
    const seen = new Set<MovedEntry>();
    for (let e = byTo.get(keyOf(address)); e !== undefined && !seen.has(e); e = byTo.get(keyOf(e.from))) {
      seen.add(e);
      out.push({ name: lastName(e.from), entry: e });
    }
    return out;
  };
}

/** The earlier names of an object no `moved` entry renames: none (one empty list, shared). */
const NO_CHAIN: ReadonlyArray<{ entry: MovedEntry; live: LiveResource | undefined }> = [];

export function matchLive(graph: DesiredGraph, live: LiveState): LiveMatch {
  // By matchKey, built only when an address is not live as it is spelled (a no-op plan never asks).
  let liveByMatch: Map<string, LiveResource> | undefined;
  const byMatch = (): Map<string, LiveResource> => {
    if (liveByMatch === undefined) {
      liveByMatch = new Map();
      for (const l of live.resources.values()) liveByMatch.set(matchKey(l.address), l);
    }
    return liveByMatch;
  };
  const find = (a: Address): LiveResource | undefined => live.resources.get(a) ?? byMatch().get(matchKey(a));
  const earlier = previousNames(graph.moved);
  const liveOf = new Map<Address, Address>();
  const renamed = new Map<Address, Address>();
  const diagnostics: Diagnostic[] = [];
  const claimed = new Set<Address>();
  const used = new Set<MovedEntry>();
  const merging = new Set<MovedEntry>();
  const desiredInOrder: DesiredResource[] = new Array(graph.order.length);
  const liveInOrder: Array<LiveResource | undefined> = new Array(graph.order.length);
  /** Every live object claimed so far was found at its desired resource's own address. */
  let allDirect = true;

  for (let i = 0; i < graph.order.length; i++) {
    const address = graph.order[i]!;
    const d = graph.resources.get(address)!;
    desiredInOrder[i] = d;
    // Inside its parent's live object: children of a renamed parent follow it.
    const parent = d.parent === undefined ? undefined : liveOf.get(d.parent) ?? d.parent;
    const own = parent === undefined || parent === d.parent ? find(address) : find(addressOf(d.kind, d.name, parent));
    const names = earlier(address);
    const chain = names.length === 0 ? NO_CHAIN : names.map(({ name, entry }) => ({ entry, live: find(addressOf(d.kind, name, parent)) }));
    // Entry i renames chain[i] to the name before it (chain[i-1], or own): both live is a merge.
    let newer = own;
    for (const c of chain) {
      if (c.live && newer && c.live !== newer) merging.add(c.entry);
      newer = c.live;
    }
    // At its own address: while every live object claimed so far sits at its own desired
    // resource's address (all distinct from this one), it is not claimed; no look-up needed.
    const direct = own !== undefined && own.address === address;
    let picked = own && ((direct && allDirect) || !claimed.has(own.address)) ? own : undefined;
    if (!own) {
      for (let j = 0; j < chain.length; j++) {
        const c = chain[j]!;
        if (!c.live || claimed.has(c.live.address)) continue;
        if (chain.slice(0, j + 1).some((x) => merging.has(x.entry))) break;
        picked = c.live;
        for (const x of chain.slice(0, j + 1)) used.add(x.entry);
        renamed.set(address, c.live.address);
        break;
      }
    }
    if (picked) {
      liveOf.set(address, picked.address);
      claimed.add(picked.address);
      // Found at the address it was asked for (the usual case): live.resources is keyed by each
      // resource's address, so that entry is itself. Otherwise looked up, as a reader of liveOf would.
      const at = picked === own && direct;
      liveInOrder[i] = at ? picked : live.resources.get(picked.address);
      if (!at) allDirect = false;
    }
  }

  // Only `moved` entries look a desired address up by its matchKey.
  const liveOfMatch = new Map<string, Address>();
  if ((graph.moved ?? []).length > 0) for (const [d, l] of liveOf) liveOfMatch.set(matchKey(d), l);
  for (const e of graph.moved ?? []) {
    const toLive = liveOfMatch.get(matchKey(e.to));
    if (merging.has(e)) {
      diagnostics.push(
        error('moved.would-merge', `moved: ${e.from} and ${e.to} both exist live; renaming would merge two live objects`, {
          detail: `${e.to} already exists live, so ${e.from} cannot take its name. Remove this entry (${e.from} is then listed as unmanaged, or deleted where its scope prunes), or delete one of the two live objects first.`,
          address: e.to,
          range: e.source,
        }),
      );
    } else if (!used.has(e) && (toLive !== undefined || find(e.to) !== undefined)) {
      diagnostics.push(
        warning('moved.stale', `moved: nothing live at ${e.from}; the entry can be removed`, {
          detail: `${e.to} exists live: the rename is done.`,
          address: e.to,
          range: e.source,
        }),
      );
    } else if (!used.has(e)) {
      // Neither side is live: a `from` with a typo (the live object is kept and a new one created),
      // or an object never applied. Not "done": the nearest live object of its kind that the
      // manifest does not claim is the likely intended `from`.
      const last = parseAddress(e.from).at(-1)!;
      const up = (a: Address) => (a.includes('/') ? a.slice(0, a.lastIndexOf('/')) : undefined);
      const toParent = up(e.to), fromParent = up(e.from);
      const liveParent = (toParent !== undefined ? liveOfMatch.get(matchKey(toParent)) : undefined) ?? (fromParent !== undefined ? find(fromParent)?.address : undefined);
      const unclaimed = [...live.resources.values()].filter((l) => l.kind === last.kind && l.parent === liveParent && !claimed.has(l.address));
      const guessName = nearest(last.name ?? '', unclaimed.map((l) => l.name));
      const guess = unclaimed.find((l) => l.name === guessName)?.address;
      diagnostics.push(
        warning('moved.stale', `moved: nothing live at ${e.from}, nor at ${e.to}: the entry renames nothing`, {
          detail: `${e.to} is created.${guess ? ` Did you mean \`from: ${guess}\`? It is live and not in the manifest.` : ' If it was never applied, the entry can be removed.'}`,
          address: e.to,
          range: e.source,
        }),
      );
    }
  }
  diagnostics.push(...variableRenameProblems(graph, live, renamed));
  return { liveOf, renamed, diagnostics, find, claimed, desiredInOrder, liveInOrder };
}

/**
 * What the API cannot do when a variable's key is renamed (PUT /variable/{id} takes a new key,
 * but "override keys cannot be edited", api-notes 6a): an override cannot be renamed, and a
 * variable with live overrides below it would leave them under the old key. Both are errors that
 * say how to get there without a rename (delete and create, which takes the overrides along).
 */
function variableRenameProblems(graph: DesiredGraph, live: LiveState, renamed: ReadonlyMap<Address, Address>): Diagnostic[] {
  const out: Diagnostic[] = [];
  const entryOf = (to: Address) => (graph.moved ?? []).find((e) => matchKey(e.to) === matchKey(to));
  for (const [to, from] of renamed) {
    const l = live.resources.get(from);
    if (!l || l.kind !== 'variable') continue;
    const entry = entryOf(to);
    if (l.attrs.variable_type === 'OVERRIDE') {
      out.push(
        error('moved.override-key', `moved: ${from} is an override, and the API cannot change an override's key`, {
          detail: `An override has the key of the variable it overrides. Remove this entry: the override ${l.name} is then deleted and ${lastName(to)} created (with \`prune: {variables: true}\` on its scope), or rename the variable it overrides.`,
          address: to,
          range: entry?.source,
        }),
      );
      continue;
    }
    const overrides = [...live.resources.values()].filter(
      (o) => o.kind === 'variable' && o.attrs.variable_type === 'OVERRIDE' && o.name === l.name && l.parent !== undefined && o.address.startsWith(`${l.parent}/`),
    );
    if (overrides.length > 0) {
      out.push(
        error('moved.overridden-variable', `moved: ${from} has ${overrides.length === 1 ? 'an override' : `${overrides.length} overrides`} (${overrides.map((o) => o.address).join(', ')}) that cannot follow a new key`, {
          detail: `The API cannot change an override's key, so renaming ${l.name} would leave its overrides under the old key. Remove this entry: the variable is then deleted with its overrides and created again under ${lastName(to)} with the overrides the manifest declares (with \`prune: {variables: true}\` on its scope).`,
          address: to,
          range: entry?.source,
        }),
      );
    }
  }
  return out;
}
