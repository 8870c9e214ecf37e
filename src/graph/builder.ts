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
   * Adds a resource: `r` itself, which becomes the DesiredResource (its keys keep the order they
   * are written in, `source` comes after them, then `dependsOn` when `r` has none); `sourceFrom`
   * is the object whose position is the resource's `source`, `spec` the manifest object it comes
   * from (for its `ignore_changes` and `protect`).
   */
  add(r: Omit<DesiredResource, 'dependsOn' | 'source'> & { dependsOn?: Address[] }, sourceFrom: object, spec?: IgnoresChanges & Protectable): DesiredResource | undefined;
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
  PendingSource.stamp(res, from, field);
  Object.defineProperty(res, 'source', SOURCE_ACCESSOR);
}

/** Returns the object it is given, so that a subclass's constructor adds its private fields to it. */
class Stamped {
  constructor(o: object) {
    return o;
  }
}

/**
 * Where an object given a lazy `source` reads it from, until it is read or assigned: private fields
 * stamped onto the object itself (`new PendingSource(o)` returns `o`, with the fields added). Not
 * a WeakMap: a WeakMap entry per resource (65,000 at 5,000 services) cost more than the rest of
 * adding the resource, and the collector walks every entry; private fields are invisible to
 * Object.keys, spreads, JSON and equality, as the WeakMap was.
 */
class PendingSource extends Stamped {
  #from: object | undefined;
  #field: string | undefined;
  #pending: boolean;

  private constructor(o: object, from: object, field: string | undefined) {
    super(o);
    this.#from = from;
    this.#field = field;
    this.#pending = true;
  }

  static stamp(o: object, from: object, field: string | undefined): void {
    if (!(#pending in o)) {
      new PendingSource(o, from, field);
      return;
    }
    const p = o as PendingSource;
    p.#from = from;
    p.#field = field;
    p.#pending = true;
  }

  /** The object the accessor was defined on: `self`, or the object it is read through the prototype of. */
  static holder(self: object): PendingSource | undefined {
    for (let o: object | null = self; o !== null; o = Object.getPrototypeOf(o) as object | null) if (#pending in o && (o as PendingSource).#pending) return o as PendingSource;
    return undefined;
  }

  /** The position the holder's `source` is read from. */
  static read(p: PendingSource): unknown {
    return sourceOf(p.#from!, p.#field);
  }

  /** Settled: no reference kept to the manifest object. */
  static forget(p: PendingSource): void {
    p.#from = undefined;
    p.#field = undefined;
    p.#pending = false;
  }
}

/** `source` as an ordinary property of the object it was defined on, as if assigned. */
function settleSource(holder: PendingSource, value: unknown): void {
  PendingSource.forget(holder);
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
    const holder = PendingSource.holder(this);
    if (holder === undefined) return undefined;
    const value = PendingSource.read(holder);
    settleSource(holder, value);
    return value;
  },
  set(this: object, value: unknown): void {
    const holder = PendingSource.holder(this);
    if (holder !== undefined) settleSource(holder, value);
  },
};
