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
import type { Address, DesiredGraph, LiveResource, LiveState, MovedEntry } from '../model/resource.js';
import { addressOf, matchKey, parseAddress } from '../model/resource.js';

export interface LiveMatch {
  /** Desired address -> the live address it is matched to. */
  liveOf: Map<Address, Address>;
  /** Desired addresses matched through a `moved` entry -> the live address renamed. */
  renamed: Map<Address, Address>;
  diagnostics: Diagnostic[];
}

function parentOf(address: Address): Address | undefined {
  const i = address.lastIndexOf('/');
  return i < 0 ? undefined : address.slice(0, i);
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
    const p = parentOf(a);
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

export function matchLive(graph: DesiredGraph, live: LiveState): LiveMatch {
  const liveByMatch = new Map<string, LiveResource>();
  for (const l of live.resources.values()) liveByMatch.set(matchKey(l.address), l);
  const find = (a: Address): LiveResource | undefined => live.resources.get(a) ?? liveByMatch.get(matchKey(a));
  const earlier = previousNames(graph.moved);
  const liveOf = new Map<Address, Address>();
  const renamed = new Map<Address, Address>();
  const diagnostics: Diagnostic[] = [];
  const claimed = new Set<Address>();
  const used = new Set<MovedEntry>();
  const merging = new Set<MovedEntry>();

  for (const address of graph.order) {
    const d = graph.resources.get(address)!;
    // Inside its parent's live object: children of a renamed parent follow it.
    const parent = d.parent === undefined ? undefined : liveOf.get(d.parent) ?? d.parent;
    const own = parent === undefined || parent === d.parent ? find(address) : find(addressOf(d.kind, d.name, parent));
    const chain = earlier(address).map(({ name, entry }) => ({ entry, live: find(addressOf(d.kind, name, parent)) }));
    // Entry i renames chain[i] to the name before it (chain[i-1], or own): both live is a merge.
    let newer = own;
    for (const c of chain) {
      if (c.live && newer && c.live !== newer) merging.add(c.entry);
      newer = c.live;
    }
    let picked = own && !claimed.has(own.address) ? own : undefined;
    if (!own) {
      for (let i = 0; i < chain.length; i++) {
        const c = chain[i]!;
        if (!c.live || claimed.has(c.live.address)) continue;
        if (chain.slice(0, i + 1).some((x) => merging.has(x.entry))) break;
        picked = c.live;
        for (const x of chain.slice(0, i + 1)) used.add(x.entry);
        renamed.set(address, c.live.address);
        break;
      }
    }
    if (picked) {
      liveOf.set(address, picked.address);
      claimed.add(picked.address);
    }
  }

  const liveOfMatch = new Map<string, Address>();
  for (const [d, l] of liveOf) liveOfMatch.set(matchKey(d), l);
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
    } else if (!used.has(e)) {
      diagnostics.push(
        warning('moved.stale', `moved: nothing live at ${e.from}; the entry can be removed`, {
          detail: toLive !== undefined ? `${e.to} exists live: the rename is done.` : `Nothing to rename: ${e.to} does not exist live either and is created.`,
          address: e.to,
          range: e.source,
        }),
      );
    }
  }
  return { liveOf, renamed, diagnostics };
}
