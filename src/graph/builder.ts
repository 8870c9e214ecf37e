/**
 * What the graph build and its sibling modules (services, variables) share: the builder they all
 * add to and the checks they all apply. In a module of its own so that build.ts can import its
 * helpers without them importing build.ts back (an import cycle: a module's exports could then be
 * read before it has run).
 */
import type { SourceRange } from '../diag/diagnostic.js';
import { error, type Diagnostic } from '../diag/diagnostic.js';
import { withArticle } from '../render/words.js';
import type { IgnoresChanges, MaybeSecret, Protectable, VariableSpec } from '../manifest/types.js';
import { sourceOf } from '../manifest/types.js';
import type { Address, DesiredResource } from '../model/resource.js';
import { SecretValue } from '../model/secret.js';
import { DESCRIPTION_MAX_LENGTH, markerLength } from '../plan/fingerprint.js';

/** A variable declared in the walk, linked (alias, override) once the whole manifest is walked. */
export interface PendingVariable {
  spec: VariableSpec;
  resource: DesiredResource;
  scope: DesiredResource;
}

/** Mutable state of one build; helpers in sibling modules add to it. */
export interface GraphBuilder {
  resources: Map<Address, DesiredResource>;
  diagnostics: Diagnostic[];
  pendingVariables: PendingVariable[];
  /** Clone sources not yet declared when their clone was walked. */
  pendingClones: Array<{ address: Address; source: Address; range: SourceRange | undefined }>;
  /**
   * Adds a resource; `spec` is the manifest object it comes from (for its `ignore_changes` and
   * `protect`), `sourceFrom` the object whose position is the resource's `source`.
   */
  add(r: Omit<DesiredResource, 'dependsOn' | 'source'> & { dependsOn?: Address[]; sourceFrom: object }, spec?: IgnoresChanges & Protectable): DesiredResource | undefined;
}

/** A sensitive value: always a SecretValue, even when the manifest wrote it in clear. */
export function secret(v: MaybeSecret | undefined): SecretValue | undefined {
  if (v === undefined) return undefined;
  return typeof v === 'string' ? new SecretValue(v) : v;
}

/** A description that must leave room for the fingerprint marker of these sensitive fields. */
export function checkDescription(
  b: GraphBuilder,
  description: string | undefined,
  sensitive: readonly string[],
  address: Address,
  /** Where the description is written: asked for only when it is too long. */
  rangeOf: () => SourceRange | undefined,
): void {
  if (description === undefined) return;
  const room = DESCRIPTION_MAX_LENGTH - markerLength(sensitive);
  if (description.length > room) {
    b.diagnostics.push(
      error('graph.description-too-long', `description is ${description.length} characters; at most ${room} are allowed here`, {
        detail:
          sensitive.length > 0
            ? `The API limits descriptions to ${DESCRIPTION_MAX_LENGTH} characters, and driftless appends ${withArticle(`${markerLength(sensitive)}-character`)} fingerprint marker to records holding secrets.`
            : `The API limits descriptions to ${DESCRIPTION_MAX_LENGTH} characters.`,
        address,
        range: rangeOf(),
      }),
    );
  }
}

/**
 * Gives `res` its `source`, the position of the manifest object `from`, read when first asked for:
 * a plan without a diagnostic reads few, and reading one builds the positions of its file
 * (src/manifest/lazy-positions.ts). Then an ordinary property, as if assigned.
 */
export function lazySource(res: { source?: SourceRange }, from: object, field?: string): void {
  pendingSources.set(res, { from, field });
  Object.defineProperty(res, 'source', SOURCE_ACCESSOR);
}

/** Where each object given a lazy `source` reads it from, until it is read or assigned. */
const pendingSources = new WeakMap<object, { from: object; field: string | undefined }>();

/** The object the accessor was defined on: `self`, or the object it is read through the prototype of. */
function sourceHolder(self: object): object | undefined {
  for (let o: object | null = self; o !== null; o = Object.getPrototypeOf(o) as object | null) if (pendingSources.has(o)) return o;
  return undefined;
}

/** `source` as an ordinary property of the object it was defined on, as if assigned. */
function settleSource(holder: object, value: unknown): void {
  pendingSources.delete(holder);
  Object.defineProperty(holder, 'source', { value, enumerable: true, writable: true, configurable: true });
}

/**
 * One getter and one setter for every object (an enumerable property like any other, then a
 * plain one). Not a closure per object: V8 gives objects whose accessors are different functions
 * a slow dictionary representation each, which every later read of the resource's fields (the
 * whole plan) paid for; with one pair they share their hidden class.
 */
const SOURCE_ACCESSOR: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: object): unknown {
    const holder = sourceHolder(this);
    if (holder === undefined) return undefined;
    const { from, field } = pendingSources.get(holder)!;
    const value = sourceOf(from, field);
    settleSource(holder, value);
    return value;
  },
  set(this: object, value: unknown): void {
    const holder = sourceHolder(this);
    if (holder !== undefined) settleSource(holder, value);
  },
};
