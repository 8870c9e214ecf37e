/**
 * What driftless never deletes or replaces, whatever the flags (Terraform's `prevent_destroy`),
 * decided after computePlan has planned everything else. Pure.
 *
 * - An object marked `protect: true` in the manifest (a project, an environment or a service), or
 *   whose live record carries the mark (./protect-mark.ts) while the manifest says nothing about
 *   it (its declaration removed, or no `protect:` key): `protect: false` is the one way to lift it.
 * - An object that holds one (its deletion or replacement would take the protected object along).
 * - An object a `moved` entry names as `from` (or that holds one): a rename never deletes, even
 *   when the entry is refused (two entries with one `to`, a cycle) and the rename cannot be made.
 *
 * Each such change is `blocked` with its `protection`, with what goes with it (children deleted or
 * replaced with it); each cause is an error diagnostic at the mark's (or the entry's) line, so the
 * plan is not applyable whatever the flags.
 */
import type { Diagnostic, SourceRange } from '../diag/diagnostic.js';
import { error } from '../diag/diagnostic.js';
import { originalAddress } from '../graph/moved.js';
import type { Address, DesiredGraph, DesiredResource, LiveResource, LiveState } from '../model/resource.js';
import { isServiceKind, matchKey } from '../model/resource.js';
import { canCarryMark } from './protect-mark.js';
import type { FieldChange, Protection, ResourceChange } from './types.js';

/**
 * The `protect` field change of a matched object whose live mark differs from what the manifest
 * says (`protect: true` not recorded yet, or `protect: false` with a mark to clear). Nothing when
 * the manifest says nothing, or when the kind has no room for the mark (environments).
 */
export function protectFieldChange(d: DesiredResource, l: LiveResource): FieldChange[] {
  if (d.protect === undefined || !canCarryMark(d.kind)) return [];
  const live = l.protected === true;
  return d.protect.value === live ? [] : [{ field: 'protect', before: live, after: d.protect.value }];
}

function at(range: SourceRange | undefined): string | undefined {
  return range ? `${range.file}:${range.start.line}:${range.start.col}` : undefined;
}

interface Mark {
  /** The protected object, at its desired address when it is declared. */
  address: Address;
  by: Protection['by'];
  range?: SourceRange;
}

/** Protected live objects, by the matchKey of their live address. */
function protectedLive(graph: DesiredGraph, live: LiveState, liveOf: ReadonlyMap<Address, Address>): Map<string, Mark> {
  const out = new Map<string, Mark>();
  const desiredOfLive = new Map<Address, DesiredResource>();
  for (const [d, l] of liveOf) desiredOfLive.set(l, graph.resources.get(d)!);
  // A service declared again under its name with another kind: the mark written on the new
  // declaration speaks for the live one it would replace.
  const sameName = new Map<string, DesiredResource>();
  for (const d of graph.resources.values()) {
    if (isServiceKind(d.kind) && d.parent !== undefined && d.protect !== undefined) sameName.set(`${matchKey(liveOf.get(d.parent) ?? d.parent)}\u0000${d.name.toLowerCase()}`, d);
  }
  for (const l of live.resources.values()) {
    const d = desiredOfLive.get(l.address) ?? (isServiceKind(l.kind) && l.parent !== undefined ? sameName.get(`${matchKey(l.parent)}\u0000${l.name.toLowerCase()}`) : undefined);
    if (d?.protect !== undefined) {
      // The manifest's word wins: `protect: false` lifts a live mark (and the apply clears it).
      if (d.protect.value) out.set(matchKey(l.address), { address: d.address, by: 'manifest', range: d.protect.source ?? d.source });
    } else if (l.protected === true) {
      out.set(matchKey(l.address), { address: d?.address ?? l.address, by: 'live', ...(d?.source ? { range: d.source } : {}) });
    }
  }
  return out;
}

/** The `from` of every `moved` entry, by matchKey, as written and with its parents' old names. */
function movedFroms(graph: DesiredGraph): Map<string, Mark> {
  const out = new Map<string, Mark>();
  const entries = graph.movedFrom ?? [];
  const toFrom = new Map(entries.map((e) => [matchKey(e.to), e.from]));
  for (const e of entries) {
    const mark: Mark = { address: e.from, by: 'moved', ...(e.source ? { range: e.source } : {}) };
    for (const a of [e.from, originalAddress(e.from, toFrom)]) if (!out.has(matchKey(a))) out.set(matchKey(a), mark);
  }
  return out;
}

/** The mark on this live address (`own`), or on the first object under it. */
function markAtOrUnder(liveKey: string, marks: ReadonlyMap<string, Mark>): { mark: Mark; own: boolean } | undefined {
  const own = marks.get(liveKey);
  if (own) return { mark: own, own: true };
  const prefix = `${liveKey}/`;
  let found: { key: string; mark: Mark } | undefined;
  for (const [k, m] of marks) if (k.startsWith(prefix) && (found === undefined || k < found.key)) found = { key: k, mark: m };
  return found ? { mark: found.mark, own: false } : undefined;
}

function describe(c: ResourceChange, m: Mark, own: boolean): { reason: string; summary: string; detail: string } {
  const where = at(m.range);
  const verb = c.actions[1] === 'create' ? 'replace' : 'delete';
  const what = own ? `${verb} it` : `${verb} it with ${m.address}`;
  if (m.by === 'moved') {
    return {
      reason: `a \`moved\` entry${where ? ` (${where})` : ''} names ${own ? 'it' : m.address} as \`from\`: a rename never deletes`,
      summary: `${c.address}: the plan would ${what}, which a \`moved\` entry renames`,
      detail: 'A `moved` entry renames in place and never deletes. This rename cannot be made (see the errors about the entry, or nothing live matched its `to`): fix the entry, or remove it if the object is really to be deleted.',
    };
  }
  if (m.by === 'manifest') {
    return {
      reason: `protected by \`protect: true\`${where ? ` (${where})` : ''}${own ? '' : ` on ${m.address}, which goes with it`}: never deleted or replaced, whatever the flags`,
      summary: `${c.address}: the plan would ${what}, which is protected (protect: true)`,
      detail: `\`protect: true\` forbids deleting or replacing it, whatever the flags (--allow-replace, --allow-data-loss, pruning, \`moved\`). Set \`protect: false\` on ${m.address} if this is intended, or undo the change that ${verb}s it.`,
    };
  }
  return {
    reason: `protected: the live record of ${own ? 'it' : `${m.address}, which goes with it,`} carries the protect mark${where ? ` (declared at ${where})` : ''}: never deleted or replaced, whatever the flags`,
    summary: `${c.address}: the plan would ${what}, whose live record carries the protect mark`,
    detail: `An apply with \`protect: true\` recorded the mark on the live object, so removing the declaration (or the \`protect\` key) does not lift it. Declare ${m.address} with \`protect: false\` and apply (that clears the mark), then remove it.`,
  };
}

/**
 * Blocks every deletion or replacement of a protected object, of an object holding one, and of
 * what goes with such a change. Returns one error per cause. `liveOf`: desired address -> live
 * address (the plan's matching).
 */
export function guardProtected(changes: ResourceChange[], graph: DesiredGraph, live: LiveState, liveOf: ReadonlyMap<Address, Address>): Diagnostic[] {
  // Only deletions and replacements are guarded: a plan without any (a no-op) needs no marks.
  if (!changes.some((c) => c.actions[0] === 'delete')) return [];
  const protect = protectedLive(graph, live, liveOf);
  const moved = movedFroms(graph);
  if (protect.size === 0 && moved.size === 0) return [];
  const diagnostics: Diagnostic[] = [];
  /** Live keys of the changes blocked on their own account, for what goes with them. */
  const blockedRoots = new Map<string, ResourceChange>();
  // A service replacing one of another kind under its name (./kind-change.ts) is keyed by the live
  // one it deletes: that is what the mark protects.
  const liveKey = (c: ResourceChange): string => matchKey(c.replaces?.address ?? liveOf.get(c.address) ?? c.address);
  for (const c of changes) {
    if (c.actions[0] !== 'delete') continue;
    const key = liveKey(c);
    // Deletion or replacement of a protected object (or of one holding it); a `moved` entry's
    // `from` is guarded against deletion only (its replacement is a change of its own).
    const found = markAtOrUnder(key, protect) ?? (c.actions.length === 1 ? markAtOrUnder(key, moved) : undefined);
    if (!found) continue;
    const m = found.mark;
    const text = describe(c, m, found.own);
    block(c, { address: m.address, by: m.by, ...(at(m.range) ? { at: at(m.range)! } : {}), reason: text.reason });
    blockedRoots.set(key, c);
    diagnostics.push(error(m.by === 'moved' ? 'plan.moved-delete' : 'plan.protected', text.summary, { detail: text.detail, address: c.address, range: m.range }));
  }
  if (blockedRoots.size === 0) return diagnostics;
  // What goes with a blocked deletion or replacement is not done either.
  for (const c of changes) {
    if (c.actions[0] !== 'delete' || c.protection) continue;
    const key = liveKey(c);
    for (const [rootKey, root] of blockedRoots) {
      if (!key.startsWith(`${rootKey}/`)) continue;
      block(c, { ...root.protection!, reason: `goes with ${root.address}, which is blocked: ${root.protection!.reason}` });
      break;
    }
  }
  return diagnostics;
}

function block(c: ResourceChange, p: Protection): void {
  c.status = 'blocked';
  c.protection = p;
  c.reasons.push(p.reason);
}
