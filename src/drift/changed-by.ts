/**
 * Who changed what: the drift report's origins from the organization's audit log instead of the
 * records' timestamps (./detect.ts infers them, and that inference stays where no log can be read).
 *
 * For each drifted object, the latest write event about it (CREATE, UPDATE, DELETE, CLONE, IMPORT)
 * names who made the live side what it is: `changed_by: {origin, triggered_by, at}`.
 * - written last by driftless itself (see `OwnWriter`): the live side is what driftless applied, so
 *   Git moved (`git`); otherwise someone changed the platform outside Git (`outside_git`);
 * - an object live and not declared: removed from Git when driftless created it or wrote it last,
 *   created outside Git when anyone else did (`cause`), which the timestamps cannot tell.
 *
 * An event names its object by `target_id` (projects, environments, services, webhooks); a
 * variable's or a stage's event names its parent and carries `sub_target_type` (VARIABLE, SECRET,
 * DEPLOYMENT_STAGE), so those are matched by parent, then by their key or name in the event's
 * `target_name` or `change`, else by the instant the live record says it was written.
 *
 * Pure: the events are read by the caller (./audit.ts).
 */
import type { AuditEvent } from '../live/audit-log.js';
import { toNanos } from '../live/audit-log.js';
import type { Address, LiveResource, LiveState, ResourceKind } from '../model/resource.js';
import { isServiceKind, parentAddress } from '../model/resource.js';
import { auditTargetOf } from '../model/kinds/index.js';
import type { ChangedBy } from './change-author.js';
import type { DriftItem, DriftReport } from './detect.js';

export type { ChangedBy } from './change-author.js';

/**
 * How driftless recognises its own writes in the log (drift usually reads with another token than
 * apply writes with, so "the token of this run" would not do, and the token listing of the API does
 * not say which token is the caller):
 * - `names` (DRIFTLESS_APPLY_TOKEN_NAME, comma-separated): the names of the API tokens apply runs
 *   with, as the log's `triggered_by`; when set, they alone decide;
 * - otherwise the event's `user_agent`: the API records the client's User-Agent, and driftless
 *   sends `driftless`.
 * A console user's edit (origin CONSOLE) is never driftless's.
 */
export interface OwnWriter {
  names: ReadonlySet<string>;
}

export function isOwnWrite(e: AuditEvent & { user_agent?: string | null }, own: OwnWriter): boolean {
  // A console user's edit is never driftless's, whatever client sent it.
  if (e.origin === 'CONSOLE') return false;
  // Named tokens are authoritative: another client of the same library is not driftless.
  if (own.names.size > 0) return e.triggered_by !== undefined && own.names.has(e.triggered_by);
  return typeof e.user_agent === 'string' && /^driftless(\/|\s|$)/i.test(e.user_agent);
}

/** The names in DRIFTLESS_APPLY_TOKEN_NAME (comma-separated; blanks ignored). */
export function ownWriterFromEnv(env: NodeJS.ProcessEnv): OwnWriter {
  return { names: new Set((env.DRIFTLESS_APPLY_TOKEN_NAME ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')) };
}

const WRITE_EVENTS: ReadonlySet<string> = new Set(['CREATE', 'UPDATE', 'DELETE', 'CLONE', 'IMPORT']);


/** How far a record's updated_at may be from its event's timestamp and still be that event (clock and rounding). */
const SAME_WRITE_NS = 2_000_000_000n;

interface Subject {
  kind: ResourceKind;
  name: string;
  /** The object's live id, when it is live. */
  id?: string;
  /** The live id of its parent (variables, stages; the environment of a service missing live). */
  parentId?: string;
  /** When the live record says it was last written (updated_at, else created_at). */
  writtenAt?: string;
}

function subjectOf(item: Pick<DriftItem, 'address' | 'kind' | 'name'>, live: LiveState): Subject {
  const l = live.resources.get(item.address);
  const parent = liveParentOf(item.address, l, live);
  const s: Subject = { kind: item.kind, name: item.name };
  if (l) s.id = l.id;
  if (parent) s.parentId = parent.id;
  const at = str(l?.record.updated_at) ?? str(l?.record.created_at);
  if (at) s.writtenAt = at;
  return s;
}

/** The live record of the object's parent. */
function liveParentOf(address: Address, l: LiveResource | undefined, live: LiveState): LiveResource | undefined {
  const parent = l?.parent ?? parentAddress(address);
  return parent === undefined ? undefined : live.resources.get(parent);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function nanos(t: string): bigint | undefined {
  try {
    return toNanos(t);
  } catch {
    return undefined;
  }
}

/**
 * The records an event's `change` names, when it is the JSON the API writes there (`{id, name,
 * ...}` or `{records: [...]}`); empty for any other text.
 */
function changedRecords(e: AuditEvent): Array<{ id?: unknown; name?: unknown }> {
  if (typeof e.change !== 'string' || !e.change.startsWith('{')) return [];
  try {
    const c = JSON.parse(e.change) as { records?: unknown };
    const list = Array.isArray(c.records) ? c.records : [c];
    return list.filter((r): r is { id?: unknown; name?: unknown } => r !== null && typeof r === 'object');
  } catch {
    return [];
  }
}

/** The event is about this very record: its change names the record's id. */
function namesId(e: AuditEvent, id: string | undefined): boolean {
  return id !== undefined && changedRecords(e).some((r) => r.id === id);
}

/** The event names the subject's key or name: in its change's records, or as its target name. */
function namesSubject(e: AuditEvent, name: string): boolean {
  const lower = name.toLowerCase();
  if (changedRecords(e).some((r) => typeof r.name === 'string' && r.name.toLowerCase() === lower)) return true;
  return e.target_name !== undefined && e.target_name.toLowerCase() === lower;
}

function closeTo(e: AuditEvent, at: string | undefined): boolean {
  if (at === undefined) return false;
  const a = nanos(at);
  const b = nanos(e.timestamp);
  if (a === undefined || b === undefined) return false;
  const d = a > b ? a - b : b - a;
  return d <= SAME_WRITE_NS;
}

/**
 * How the events were matched to their subject: by the subject's own id (target_id, or the id in a
 * sub-target's change), by its name, or by the instant its record was written. The order matters:
 * a weaker match is used only when no stronger one exists.
 */
type MatchedBy = 'id' | 'name' | 'time';

/** The write events about a subject, oldest first (the input's order). */
export function eventsAbout(subject: Subject, events: readonly AuditEvent[]): AuditEvent[] {
  return matchEvents(subject, events).about;
}

function matchEvents(subject: Subject, events: readonly AuditEvent[]): { about: AuditEvent[]; by: MatchedBy } {
  const writes = events.filter((e) => WRITE_EVENTS.has(e.event_type));
  // How the log names the subject (its descriptor's audit target, src/model/kinds).
  const target: { type?: string; subTypes?: readonly string[] } = auditTargetOf(subject.kind) ?? {};
  const { subTypes, type } = target;
  if (subTypes) {
    // Recorded on the parent (or the organization): matched by parent or own id, then by name.
    const candidates = writes.filter(
      (e) => e.sub_target_type != null && subTypes.includes(e.sub_target_type) && (e.target_id == null || e.target_id === subject.parentId || e.target_id === subject.id || subject.parentId === undefined),
    );
    const byId = candidates.filter((e) => namesId(e, subject.id));
    if (byId.length > 0) return { about: byId, by: 'id' };
    const named = candidates.filter((e) => namesSubject(e, subject.name));
    if (named.length > 0) return { about: named, by: 'name' };
    // The event does not say which variable: the one written at the instant the record was.
    return { about: candidates.filter((e) => closeTo(e, subject.writtenAt)), by: 'time' };
  }
  const about = writes.filter((e) => {
    if (e.sub_target_type != null) return false;
    if (subject.id !== undefined && e.target_id === subject.id) return true;
    // Not live (deleted): its deletion is an event of its type, name and parent.
    if (subject.id === undefined && type !== undefined && e.target_type === type && e.target_name?.toLowerCase() === subject.name.toLowerCase()) {
      return subject.parentId === undefined || !isServiceKind(subject.kind) || e.environment_id == null || e.environment_id === subject.parentId;
    }
    return false;
  });
  return { about, by: subject.id !== undefined ? 'id' : 'name' };
}

/**
 * Whether the events of a recent window of the log (every event since some instant, as the refresh
 * read them) already give this item the attribution that the whole log would: then drift need not
 * read the log again for it. True only when the answer cannot depend on an older event:
 * - the window holds the subject's latest write (the events match by its id -- or, for an object
 *   that is gone, by its name, the strongest match there is -- and its live record was not written
 *   after the last of them, which would be a write the window missed);
 * - for an object live and not declared, driftless wrote it last (removed from Git whoever created
 *   it), or the window holds its creation (an id is created once).
 * An item the report does not attribute from the log (not deployed) needs no event.
 */
/**
 * The window of events holds the deletion of this object that is no longer live (its last write):
 * the log then says who deleted it and when, so no deployment history needs to date it.
 */
export function deletedInWindow(object: Pick<DriftItem, 'address' | 'kind' | 'name'>, live: LiveState, events: readonly AuditEvent[]): boolean {
  if (live.resources.has(object.address)) return false;
  const { about, by } = matchEvents(subjectOf(object, live), events);
  return by === 'name' && about.at(-1)?.event_type === 'DELETE';
}

export function settledByWindow(item: DriftItem, live: LiveState, events: readonly AuditEvent[], own: OwnWriter): boolean {
  // The refresh's window holds the newest events: a configuration write in it is the latest one;
  // without one, the log is read from the service's last deployment (nothing to read without one).
  if (item.drift === 'not_deployed') return item.last_deployment === undefined || !live.resources.has(item.address) || lastConfigurationWrite(item, live, events) !== undefined;
  const subject = subjectOf(item, live);
  const { about, by } = matchEvents(subject, events);
  const last = about.at(-1);
  if (!last) return false;
  // A live object is matched by its id or not at all: a name match here could hide an id match before the window.
  if (subject.id !== undefined && by !== 'id') return false;
  if (subject.id === undefined && by !== 'name') return false;
  const written = subject.writtenAt === undefined ? undefined : nanos(subject.writtenAt);
  const lastAt = nanos(last.timestamp);
  if (written !== undefined && (lastAt === undefined || written > lastAt + SAME_WRITE_NS)) return false;
  if (item.drift === 'unmanaged') return isOwnWrite(last, own) || about.some((e) => e.event_type === 'CREATE' || e.event_type === 'CLONE' || e.event_type === 'IMPORT');
  return true;
}

function changedByOf(e: AuditEvent): ChangedBy {
  return { origin: e.origin ?? 'UNKNOWN', triggered_by: e.triggered_by ?? 'unknown', at: e.timestamp };
}

/** An item whose live side driftless wrote last (its origin from the log is then Git's). */
function isDriftlessOrigin(item: DriftItem): boolean {
  return item.attribution === 'audit_log' && item.origin === 'git';
}

/** "in the console by ops-oncall@example.com", "through the API by token \"ci-bot\""... */
export function whoText(c: ChangedBy): string {
  switch (c.origin) {
    case 'CONSOLE':
      return `in the console by ${c.triggered_by}`;
    case 'API':
      return `through the API by token "${c.triggered_by}"`; // quoted: token names are free text ("admin token")
    case 'CLI':
      return `with the CLI by ${c.triggered_by}`;
    case 'TERRAFORM_PROVIDER':
      return `by the Terraform provider as ${c.triggered_by}`;
    case 'GIT':
      return `by a Git push (${c.triggered_by})`;
    case 'QOVERY_INTERNAL':
      return `by the platform itself (${c.triggered_by})`;
    default:
      return `by ${c.triggered_by} (${c.origin})`;
  }
}

/** `10:42 UTC on 2026-11-25`: the minute the audit log says. */
export function whenText(at: string): string {
  const ms = nanos(at);
  if (ms === undefined) return at;
  const iso = new Date(Number(ms / 1_000_000n)).toISOString();
  return `${iso.slice(11, 16)} UTC on ${iso.slice(0, 10)}`;
}

/** The item's line about who: "changed in the console by X at 10:42 UTC on 2026-11-25". */
export function changedByLine(item: DriftItem): string | undefined {
  const c = item.changed_by;
  if (!c) return undefined;
  if (item.drift === 'not_deployed') return `configuration last changed ${isDriftlessOrigin(item) ? 'by driftless ' : ''}${whoText(c)} at ${whenText(c.at)}, not deployed since`;
  const verb = item.drift === 'missing' ? 'deleted' : item.drift === 'unmanaged' ? 'created' : 'changed';
  if (item.drift === 'unmanaged' && item.cause === 'removed_from_git') return `written by driftless ${whoText(c)} at ${whenText(c.at)}; removed from Git since`;
  if (item.drift === 'changed' && item.origin === 'git') return `last written by driftless ${whoText(c)} at ${whenText(c.at)}`;
  return `${verb} ${whoText(c)} at ${whenText(c.at)}`;
}

/**
 * The report with each item's origin taken from the audit log where the log has its writes. Items
 * the log says nothing about (written before the window read, or a kind it does not record) keep
 * the timestamps' inference, labelled as such. The fingerprint does not change: it is a hash of
 * what drifted, not of who.
 */
export function attributeFromAuditLog(report: DriftReport, live: LiveState, events: readonly AuditEvent[], own: OwnWriter): DriftReport {
  const items = report.items.map((item) => attributeItem(item, live, events, own));
  const summary = { ...report.summary, outside_git: 0, git: 0, unknown: 0 };
  for (const i of items) summary[i.origin]++;
  return { ...report, items, summary, attribution: { source: 'audit_log' } };
}

function attributeItem(item: DriftItem, live: LiveState, events: readonly AuditEvent[], own: OwnWriter): DriftItem {
  if (item.drift === 'not_deployed') return attributeNotDeployed(item, live, events, own);
  const about = eventsAbout(subjectOf(item, live), events);
  const last = about.at(-1);
  if (!last) return { ...item, attribution: 'inference' };
  const changedBy = changedByOf(last);
  const mine = isOwnWrite(last, own);
  if (item.drift === 'unmanaged') {
    const created = about.find((e) => e.event_type === 'CREATE' || e.event_type === 'CLONE' || e.event_type === 'IMPORT');
    const removed = mine || (created !== undefined && isOwnWrite(created, own));
    const cause = removed ? ('removed_from_git' as const) : ('created_outside_git' as const);
    const by = removed ? changedByOf(mine ? last : created!) : changedByOf(created ?? last);
    const prune = item.apply_fixes ? 'apply deletes it' : 'pruning is off for its scope, so apply leaves it';
    const summary = removed
      ? `exists live but not in Git: removed from Git (driftless ${mine ? 'wrote it last' : 'created it'}); ${prune}`
      : `exists live but not in Git: created outside Git; ${prune}`;
    return { ...item, origin: removed ? 'git' : 'outside_git', cause, changed_by: by, summary, attribution: 'audit_log' };
  }
  if (item.drift === 'missing') {
    if (last.event_type !== 'DELETE') return { ...item, attribution: 'inference' };
    if (mine) return { ...item, origin: 'git', changed_by: changedByOf(last), summary: 'declared in Git, deleted live by driftless (an older manifest pruned it): added back in Git, not applied yet', attribution: 'audit_log' };
    return { ...item, origin: 'outside_git', changed_by: changedByOf(last), summary: 'declared in Git, deleted live outside Git', attribution: 'audit_log' };
  }
  // changed
  const names = item.fields.map((f) => f.field).join(', ');
  if (mine) return { ...item, origin: 'git', changed_by: changedByOf(last), summary: `${names} differ${item.fields.length === 1 ? 's' : ''} from Git: changed in Git since driftless last wrote ${item.fields.length === 1 ? 'it' : 'them'}, not applied yet`, attribution: 'audit_log' };
  return { ...item, origin: 'outside_git', changed_by: changedByOf(last), summary: `${names} changed outside Git`, attribution: 'audit_log' };
}

/**
 * A service that does not run what Git says because its configuration changed since its last
 * deployment (and no item of its own says which change): the latest write after that deployment to
 * the service itself or to a variable it sees (its own, its environment's, its project's) names
 * who. A console edit reverted by hand leaves exactly this. Written by driftless (an apply with
 * --no-deploy): Git's change, not deployed yet.
 */
function attributeNotDeployed(item: DriftItem, live: LiveState, events: readonly AuditEvent[], own: OwnWriter): DriftItem {
  const last = lastConfigurationWrite(item, live, events);
  if (!last) return { ...item, attribution: 'inference' };
  return { ...item, origin: isOwnWrite(last, own) ? 'git' : 'outside_git', changed_by: changedByOf(last), attribution: 'audit_log' };
}

/** The latest write since the service's last deployment to it or to a variable it sees, if these events hold one. */
function lastConfigurationWrite(item: DriftItem, live: LiveState, events: readonly AuditEvent[]): AuditEvent | undefined {
  const service = live.resources.get(item.address);
  const deployed = item.last_deployment === undefined ? undefined : nanos(item.last_deployment);
  if (!service || deployed === undefined) return undefined;
  const env = service.parent === undefined ? undefined : live.resources.get(service.parent);
  const project = env?.parent === undefined ? undefined : live.resources.get(env.parent);
  return events
    .filter((e) => {
      const at = nanos(e.timestamp);
      if (!WRITE_EVENTS.has(e.event_type) || at === undefined || at <= deployed || e.target_id == null) return false;
      const variable = e.sub_target_type === 'VARIABLE' || e.sub_target_type === 'SECRET';
      if (e.target_id === service.id) return e.sub_target_type == null || variable;
      return variable && (e.target_id === env?.id || e.target_id === project?.id);
    })
    .at(-1);
}

/**
 * Where to start reading the log for these items: the earliest instant any of them was written
 * live (a second earlier, for clocks) -- the write the log names is that one, and every later one
 * is after it --, or, for an item whose record does not say, deployed; undefined when none is
 * known (the whole retention is read, within the reader's page bound). Not the last deployment of
 * an item whose record is dated: a drift that persists for days would read every event since the
 * services were last deployed, usually more pages than a drift report reads, and lose the log.
 */
export function windowStart(report: DriftReport): string | undefined {
  let min: bigint | undefined;
  for (const i of report.items) {
    const t = i.since ?? i.last_deployment;
    const n = t === undefined ? undefined : nanos(t);
    if (n !== undefined && (min === undefined || n < min)) min = n;
  }
  if (min === undefined) return undefined;
  return new Date(Number((min - 1_000_000_000n) / 1_000_000n)).toISOString();
}

/**
 * The report when the log could not be read beyond the window the refresh read: the items that
 * window settles (see settledByWindow) attributed from it, the others the timestamps' inference,
 * and why.
 */
export function partlyInferredReport(report: DriftReport, live: LiveState, events: readonly AuditEvent[], own: OwnWriter, reason: string): DriftReport {
  const settled = report.items.filter((i) => settledByWindow(i, live, events, own));
  if (settled.length === 0) return inferredReport(report, reason);
  const items = report.items.map((i) => (settled.includes(i) ? attributeItem(i, live, events, own) : { ...i, attribution: 'inference' as const }));
  const summary = { ...report.summary, outside_git: 0, git: 0, unknown: 0 };
  for (const i of items) summary[i.origin]++;
  return { ...report, items, summary, attribution: { source: 'inference', reason: `for ${report.items.length - settled.length} of ${report.items.length} items, ${reason}` } };
}

/** The report when the log cannot be read: the timestamps' inference, said to be one, and why. */
export function inferredReport(report: DriftReport, reason: string): DriftReport {
  return { ...report, items: report.items.map((i) => ({ ...i, attribution: 'inference' as const })), attribution: { source: 'inference', reason } };
}
